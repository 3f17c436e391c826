"""A small torchvision program: ImageFolder / DatasetFolder / FakeData on locally generated files through v1 and
v2 transforms and a DataLoader, then resnet18, mobilenet_v3_small, efficientnet_b0 and a small ViT built with
``weights=None`` from shared initial weights: forward in eval mode and a few SGD steps in train mode.  Prints
values to compare between real torch and ``python -m torchlike run``.

Usage: tv_resnet_train.py INIT_DIR   (the first run writes the initial weights there, the second reads them)
"""
import os
import sys
import tempfile

import numpy as np
import torch
from _torchvision_schemas import load_or_define

_LIB = load_or_define()

import torchvision  # noqa: E402
from PIL import Image  # noqa: E402
from torchvision import datasets, models  # noqa: E402
from torchvision import transforms as T  # noqa: E402
from torchvision.transforms import v2  # noqa: E402

init_dir = sys.argv[1]
os.makedirs(init_dir, exist_ok=True)
rng = np.random.default_rng(0)
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def fmt(t, n=4):
    return [float(f"{float(v):.6g}") for v in t.flatten()[:n]]


with tempfile.TemporaryDirectory() as root:
    img_root, npy_root = os.path.join(root, "img"), os.path.join(root, "npy")
    for c, cls in enumerate(["cat", "dog"]):
        os.makedirs(os.path.join(img_root, cls))
        os.makedirs(os.path.join(npy_root, cls))
        for i in range(4):
            a = rng.integers(0, 256, (40, 48, 3), dtype=np.uint8)
            a[:, :, c] //= 2  # a class signal
            Image.fromarray(a).save(os.path.join(img_root, cls, f"{i}.png"))
            np.save(os.path.join(npy_root, cls, f"{i}.npy"), a.astype(np.float32) / 255)

    tf_v1 = T.Compose([T.Resize(36), T.CenterCrop(32), T.ToTensor(), T.Normalize(MEAN, STD)])
    ds = datasets.ImageFolder(img_root, transform=tf_v1)
    x0, y0 = ds[0]
    print("imagefolder", ds.classes, ds.class_to_idx, len(ds), tuple(x0.shape), y0, fmt(x0), round(float(x0.sum()), 3))

    torch.manual_seed(1)
    # float images: torch resizes uint8 ones with CPU-specific kernels (docs/differences.md, torchvision)
    tf_v2 = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True), v2.Resize(36, antialias=True),
                        v2.RandomResizedCrop(32, antialias=True), v2.RandomHorizontalFlip(), v2.Normalize(MEAN, STD)])
    ds2 = datasets.ImageFolder(img_root, transform=tf_v2)
    print("v2", [round(float(ds2[i][0].sum()), 2) for i in range(3)], type(ds2[0][0]).__name__)

    torch.manual_seed(2)
    tf_rand = T.Compose([T.RandomResizedCrop(24), T.RandomHorizontalFlip(), T.ColorJitter(0.3, 0.3, 0.3),
                         T.PILToTensor(), T.ConvertImageDtype(torch.float32)])
    print("v1 random", [round(float(tf_rand(Image.open(os.path.join(img_root, "dog", "1.png")).convert("RGB")).sum()), 2)
                        for _ in range(2)])

    npy = datasets.DatasetFolder(npy_root, loader=np.load, extensions=(".npy",),
                                 transform=lambda a: torch.from_numpy(a).permute(2, 0, 1))
    print("datasetfolder", len(npy), npy.classes, [round(float(npy[i][0].mean()), 4) for i in (0, 5)], npy[5][1])

    fake = datasets.FakeData(size=4, image_size=(3, 8, 8), num_classes=3, transform=T.ToTensor(), random_offset=5)
    print("fakedata", [(round(float(fake[i][0].sum()), 3), int(fake[i][1])) for i in range(4)])

    g = torch.Generator().manual_seed(0)
    loader = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=True, generator=g)
    batches = list(loader)
    print("loader", [b[1].tolist() for b in batches], [round(float(b[0].sum()), 2) for b in batches])
    xb = torch.cat([b[0] for b in batches])
    yb = torch.cat([b[1] for b in batches])

vit = dict(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64)
builders = {
    "resnet18": lambda: models.resnet18(weights=None, num_classes=2),
    "mobilenet_v3_small": lambda: models.mobilenet_v3_small(weights=None, num_classes=2, dropout=0.0),
    "efficientnet_b0": lambda: models.efficientnet_b0(weights=None, num_classes=2, dropout=0.0,
                                                       stochastic_depth_prob=0.0),
    "vit": lambda: models.VisionTransformer(num_classes=2, **vit),
}
for name, build in builders.items():
    torch.manual_seed(0)
    model = build()
    path = os.path.join(init_dir, name + ".pt")
    if os.path.exists(path):
        model.load_state_dict(torch.load(path))
    else:
        torch.save(model.state_dict(), path)
    print(name, "params", sum(p.numel() for p in model.parameters()))
    model.train()
    # small plain-SGD steps: train-mode BatchNorm on a batch of 8 amplifies float32 rounding differences
    # between implementations step by step, as it does between torch builds
    # efficientnet_b0 on 32x32 inputs has gradient norms in the thousands: its trajectory is chaotic after the
    # first step (in torch too, across builds), so it takes one step
    opt = torch.optim.SGD(model.parameters(), lr=0.001)
    for step in range(1 if name == "efficientnet_b0" else 3):
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        if step == 0:
            gn = torch.sqrt(sum((p.grad.double() ** 2).sum() for p in model.parameters() if p.grad is not None))
            print(name, "grad norm", fmt(gn))
        opt.step()
        print(name, "step", step, "loss", round(loss.item(), 5))
    model.eval()  # BatchNorm's running statistics now come from the training steps
    with torch.no_grad():
        out = model(xb)
    print(name, "eval", tuple(out.shape), fmt(out), fmt(out.abs().sum()))
print("torchvision", torchvision.__version__.split("+")[0])
