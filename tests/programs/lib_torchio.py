"""torchio on in-memory 3-D volumes (no download): Subjects of ScalarImage/LabelMap built from tensors with an
anisotropic affine, preprocessing (RescaleIntensity, ZNormalization with a mask, Resample, CropOrPad,
ToCanonical), augmentation seeded with ``torch.manual_seed`` (RandomFlip, RandomAffine,
RandomElasticDeformation, RandomNoise, RandomBiasField, RandomGamma, RandomBlur, OneOf, Compose), the
transform history and its inverse, SubjectsDataset + DataLoader, a patch Queue (UniformSampler and
LabelSampler, num_workers=0) feeding a few Adam steps of a tiny 3-D conv net, and GridSampler/GridAggregator
patch-based inference (average and Hann overlap)."""
import torch
import torchio as tio


def r(x, n=4):
    return round(float(x), n)


def volume(seed, shape=(20, 18, 16)):
    g = torch.Generator().manual_seed(seed)
    zz, yy, xx = torch.meshgrid(*[torch.linspace(-1, 1, s) for s in shape], indexing="ij")
    ball = (zz ** 2 + yy ** 2 + xx ** 2) < 0.45
    image = 100 + 400 * ball.float() + 30 * torch.randn(shape, generator=g) + 50 * xx
    label = ball.long() + ((zz > 0.3) & ball).long()
    affine = torch.diag(torch.tensor([1.5, 1.2, 2.0, 1.0], dtype=torch.float64)).numpy()
    return tio.Subject(t1=tio.ScalarImage(tensor=image[None], affine=affine),
                       seg=tio.LabelMap(tensor=label[None], affine=affine), age=40 + seed)


def describe(name, subject):
    img, seg = subject.t1.data, subject.seg.data
    ramp = torch.linspace(0, 1, img.numel()).reshape(img.shape)  # position-sensitive: sees flips and shifts
    print(name, tuple(img.shape), img.dtype, r(img.float().mean(), 3), r(img.float().std(), 3),
          r((img.float() * ramp).mean(), 3), r((seg.float() * ramp).sum(), 2),
          seg.dtype, torch.unique(seg).tolist(), int(seg.sum()), tuple(round(s, 3) for s in subject.t1.spacing))


def preprocessing(subject):
    describe("raw", subject)
    print("spatial", subject.spatial_shape, subject.t1.orientation, [round(float(o), 3) for o in subject.t1.origin])
    describe("rescale", tio.RescaleIntensity(out_min_max=(0, 1), percentiles=(1, 99))(subject))
    describe("znorm", tio.ZNormalization(masking_method="seg")(subject))
    describe("resample", tio.Resample(2.0)(subject))
    describe("crop_or_pad", tio.CropOrPad((16, 20, 12))(subject))
    describe("crop_or_pad mask", tio.CropOrPad((12, 12, 12), mask_name="seg")(subject))
    describe("canonical", tio.ToCanonical()(subject))


def augmentation(subject):
    cases = [
        ("flip", tio.RandomFlip(axes=("LR", "AP"), flip_probability=0.7)),
        ("affine", tio.RandomAffine(scales=(0.9, 1.1), degrees=10, translation=2)),
        ("elastic", tio.RandomElasticDeformation(num_control_points=5, max_displacement=3)),
        ("noise", tio.RandomNoise(std=(0, 20))),
        ("bias", tio.RandomBiasField(coefficients=0.3)),
        ("gamma", tio.Compose([tio.RescaleIntensity((0, 1)), tio.RandomGamma(log_gamma=0.3)])),
        ("blur", tio.RandomBlur(std=(0.5, 1.5))),
        ("oneof", tio.OneOf({tio.RandomAffine(degrees=15): 0.6, tio.RandomFlip(axes=(0, 1, 2)): 0.4})),
    ]
    for i, (name, transform) in enumerate(cases):
        torch.manual_seed(10 + i)
        out = transform(subject)
        describe(name, out)
    torch.manual_seed(30)
    pipeline = tio.Compose([tio.ToCanonical(), tio.RandomFlip(axes=("LR",)), tio.RandomAffine(degrees=5),
                            tio.ZNormalization(), tio.RandomNoise(std=0.1)])
    out = pipeline(subject)
    describe("pipeline", out)
    print("history", [type(t).__name__ for t in out.history])
    print("history args", [sorted(t.args_names) if hasattr(t, "args_names") else None for t in out.history][:2])
    inverse = out.apply_inverse_transform(warn=False)
    describe("inverse", inverse)
    composed = out.get_composed_history()
    print("composed", type(composed).__name__, len(composed))


def tiny_net():
    return torch.nn.Sequential(torch.nn.Conv3d(1, 4, 3, padding=1), torch.nn.ReLU(),
                               torch.nn.Conv3d(4, 3, 3, padding=1))


def train_with_queue(subjects):
    torch.manual_seed(40)
    transform = tio.Compose([tio.RescaleIntensity((0, 1)), tio.RandomFlip(axes=("LR",))])
    dataset = tio.SubjectsDataset(subjects, transform=transform)
    print("dataset", len(dataset), dataset[0].t1.shape, dataset[1]["age"])
    loader = torch.utils.data.DataLoader(dataset, batch_size=2, collate_fn=None)
    batch = next(iter(loader))
    print("batch", tuple(batch["t1"][tio.DATA].shape), batch["age"].tolist(), r(batch["t1"][tio.DATA].mean()))
    net = tiny_net()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for name, sampler in [("uniform", tio.UniformSampler(8)),
                          ("label", tio.LabelSampler(8, label_name="seg", label_probabilities={0: 1, 1: 2, 2: 2}))]:
        queue = tio.Queue(dataset, max_length=6, samples_per_volume=3, sampler=sampler, num_workers=0)
        patches = torch.utils.data.DataLoader(queue, batch_size=3, num_workers=0)
        losses = []
        for patch in patches:
            x = patch["t1"][tio.DATA]
            y = patch["seg"][tio.DATA][:, 0]
            loss = torch.nn.functional.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(r(loss.item()))
        print("queue", name, len(queue), losses, patch[tio.LOCATION].tolist()[0])
    return net


def grid_inference(subject, net):
    subject = tio.RescaleIntensity((0, 1))(subject)
    for mode in ("average", "hann", "crop"):
        sampler = tio.GridSampler(subject, patch_size=(10, 10, 8), patch_overlap=(4, 4, 2))
        aggregator = tio.GridAggregator(sampler, overlap_mode=mode)
        loader = torch.utils.data.DataLoader(sampler, batch_size=4)
        with torch.no_grad():
            for patch in loader:
                aggregator.add_batch(net(patch["t1"][tio.DATA]), patch[tio.LOCATION])
        out = aggregator.get_output_tensor()
        pred = out.argmax(0)
        print("grid", mode, len(sampler), tuple(out.shape), out.dtype, r(out.mean()), r(out.abs().sum(), 2),
              torch.bincount(pred.flatten(), minlength=3).tolist())


def main():
    subjects = [volume(s) for s in range(3)]
    preprocessing(subjects[0])
    augmentation(subjects[0])
    net = train_with_queue(subjects)
    grid_inference(subjects[1], net)


if __name__ == "__main__":
    main()
