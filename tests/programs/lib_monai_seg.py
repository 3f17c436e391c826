"""MONAI: a tiny 2-D UNet trained with DiceLoss/DiceCELoss and Adam on synthetic masks, DiceMetric after AsDiscrete,
sliding_window_inference, array and dict transforms, BasicUNet/DynUNet/SegResNet forward passes and
monai.data.DataLoader over Dataset/CacheDataset of in-memory dicts."""
import numpy as np
import torch
import monai
from monai.data import CacheDataset, DataLoader, Dataset
from monai.inferers import sliding_window_inference
from monai.losses import DiceCELoss, DiceLoss
from monai.metrics import DiceMetric
from monai.networks.nets import BasicUNet, DynUNet, SegResNet, UNet
from monai.transforms import (AsDiscrete, Compose, RandFlip, RandFlipd, Resize, ScaleIntensity,
                              ScaleIntensityd)

monai.utils.set_determinism(0)
torch.manual_seed(0)


def r(x, n=5):
    return round(float(x), n)


def make_data(n, size=32):
    rng = np.random.default_rng(0)
    imgs, masks = [], []
    yy, xx = np.mgrid[:size, :size]
    for _ in range(n):
        cy, cx = rng.integers(8, size - 8, 2)
        rad = rng.integers(4, 8)
        m = (((yy - cy) ** 2 + (xx - cx) ** 2) < rad ** 2).astype(np.float32)
        img = m * 1.0 + 0.3 * rng.standard_normal((size, size)).astype(np.float32)
        imgs.append(img[None])
        masks.append(m[None])
    return np.stack(imgs).astype(np.float32), np.stack(masks).astype(np.float32)


imgs, masks = make_data(8)
x = torch.from_numpy(imgs)
y = torch.from_numpy(masks)

net = UNet(spatial_dims=2, in_channels=1, out_channels=2, channels=(4, 8, 16), strides=(2, 2), num_res_units=1)
print("unet params", sum(p.numel() for p in net.parameters()))
opt = torch.optim.Adam(net.parameters(), 1e-2)
dice_ce = DiceCELoss(to_onehot_y=True, softmax=True)
losses = []
for step in range(5):
    opt.zero_grad()
    out = net(x)
    loss = dice_ce(out, y)
    loss.backward()
    opt.step()
    losses.append(r(loss.item(), 4))
print("dicece losses", losses)

dice = DiceLoss(sigmoid=True)
net1 = UNet(spatial_dims=2, in_channels=1, out_channels=1, channels=(4, 8, 16), strides=(2, 2))
opt1 = torch.optim.Adam(net1.parameters(), 1e-2)
l1 = []
for step in range(4):
    opt1.zero_grad()
    loss = dice(net1(x), y)
    loss.backward()
    opt1.step()
    l1.append(r(loss.item(), 4))
print("dice losses", l1)

net.eval()
post_pred = AsDiscrete(argmax=True, to_onehot=2)
post_label = AsDiscrete(to_onehot=2)
metric = DiceMetric(include_background=False, reduction="mean")
with torch.no_grad():
    out = net(x)
    preds = [post_pred(o) for o in out]
    labels = [post_label(t) for t in y]
    metric(y_pred=preds, y=labels)
print("dice metric", r(metric.aggregate().item(), 4), "pred shape", tuple(preds[0].shape))
metric.reset()

with torch.no_grad():
    big = torch.randn(1, 1, 80, 72)
    sw = sliding_window_inference(big, roi_size=(32, 32), sw_batch_size=4, predictor=net, overlap=0.25)
print("sliding window", tuple(sw.shape), r(sw.float().mean(), 4), r(sw.float().std(), 4))

img = torch.arange(2 * 12 * 10, dtype=torch.float32).reshape(2, 12, 10)
scaled = ScaleIntensity()(img)
print("scale", r(scaled.min()), r(scaled.max()), r(scaled.mean()))
flip = RandFlip(prob=1.0, spatial_axis=0)
flip.set_random_state(seed=0)
flipped = flip(img)
print("flip", flipped[0, 0, :3].tolist(), tuple(flipped.shape))
resized = Resize((6, 5))(img)
print("resize", tuple(resized.shape), r(resized.mean(), 3))
chain = Compose([ScaleIntensity(minv=-1.0, maxv=1.0), Resize((24, 20)), RandFlip(prob=0.5, spatial_axis=1)])
chain.set_random_state(seed=1)
c = chain(img)
print("compose", tuple(c.shape), r(c.max(), 4), r(c.abs().sum(), 3))

torch.manual_seed(0)
with torch.no_grad():
    bu = BasicUNet(spatial_dims=2, in_channels=1, out_channels=2, features=(4, 4, 8, 8, 16, 4))
    print("basicunet", tuple(bu(x[:2]).shape), sum(p.numel() for p in bu.parameters()))
    dyn = DynUNet(spatial_dims=2, in_channels=1, out_channels=2, kernel_size=[3, 3, 3], strides=[1, 2, 2],
                  upsample_kernel_size=[2, 2], filters=[4, 8, 16])
    print("dynunet", tuple(dyn(x[:2]).shape), sum(p.numel() for p in dyn.parameters()))
    srn = SegResNet(spatial_dims=2, init_filters=8, in_channels=1, out_channels=2, blocks_down=(1, 1, 1),
                    blocks_up=(1, 1))
    print("segresnet", tuple(srn(x[:2]).shape), sum(p.numel() for p in srn.parameters()))

data = [{"image": imgs[i], "label": masks[i]} for i in range(8)]
tfm = Compose([ScaleIntensityd(keys="image"), RandFlipd(keys=["image", "label"], prob=0.5, spatial_axis=1)])
tfm.set_random_state(seed=0)
ds = Dataset(data, transform=tfm)
loader = DataLoader(ds, batch_size=4, shuffle=False, num_workers=0)
for batch in loader:
    print("batch", tuple(batch["image"].shape), type(batch["image"]).__name__, r(batch["image"].mean(), 4),
          r(batch["label"].sum(), 1))
cds = CacheDataset(data, transform=Compose([ScaleIntensityd(keys="image")]), cache_rate=1.0, progress=False)
cl = DataLoader(cds, batch_size=8)
net.train()
opt.zero_grad()
for batch in cl:
    loss = dice_ce(net(batch["image"]), batch["label"])
    loss.backward()
    opt.step()
    print("cache batch", tuple(batch["image"].shape), r(loss.item(), 4), r(batch["image"].max(), 4))
