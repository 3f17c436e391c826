"""webdataset: tar-shard datasets feeding torch training. Samples (a .pth tensor saved with torch.save, a .npy
array, a .cls label, a .json dict and a PNG image) are written with ShardWriter, then read back through
WebDataset's fluid pipeline (shuffle with a fixed seed, decode including "torchrgb" images, to_tuple, map_tuple,
batched) and the explicit DataPipeline form, iterated by torch's DataLoader (batch_size=None, and with two worker
processes splitting the shards) and by WebLoader with unbatched/rebatching, and used to train a small model."""
import glob
import io
import os
import shutil
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
import webdataset as wds
from PIL import Image


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    return round(float(x), n)


tmp = tempfile.mkdtemp()
torch.manual_seed(0)
rng = np.random.default_rng(0)
W = torch.randn(6, 3)
with wds.ShardWriter(os.path.join(tmp, "shard-%03d.tar"), maxcount=12, verbose=0) as sink:
    for i in range(48):
        feat = torch.randn(6)
        img = (rng.random((4, 4, 3)) * 255).astype(np.uint8)
        png = io.BytesIO()
        Image.fromarray(img).save(png, format="PNG")
        sink.write({"__key__": f"s{i:04d}", "pth": feat, "npy": rng.standard_normal(3).astype(np.float32),
                    "cls": int((feat @ W).argmax()), "json": {"i": i, "even": i % 2 == 0}, "png": png.getvalue()})
shards = sorted(glob.glob(os.path.join(tmp, "shard-*.tar")))
print("shards", len(shards), [os.path.basename(s) for s in shards])
url = os.path.join(tmp, "shard-{000..003}.tar")

# fluid interface: decode, to_tuple, map_tuple
ds = wds.WebDataset(url, shardshuffle=False).decode("torchrgb").to_tuple("pth", "npy", "cls", "json", "png")
feat, arr, cls, meta, img = next(iter(ds))
print("sample", type(feat).__name__, feat.dtype, r(feat), type(arr).__name__, cls, meta)
print("image", type(img).__name__, tuple(img.shape), img.dtype, r(img.mean()), r(img[:, 0, 0]))
print("count", sum(1 for _ in ds))

# shuffled, mapped and batched pipeline through torch's DataLoader
torch.manual_seed(1)
train = (wds.WebDataset(url, shardshuffle=4, seed=7).shuffle(16, seed=3).decode().to_tuple("pth", "cls")
         .map_tuple(lambda x: x * 2.0, lambda c: c).batched(8, partial=False))
loader = torch.utils.data.DataLoader(train, batch_size=None, num_workers=0)
keys = [b[1].tolist() for b in loader]
print("batches", len(keys), keys[0], type(next(iter(loader))[0]).__name__)
xb, yb = next(iter(loader))
print("batch", tuple(xb.shape), xb.dtype, tuple(yb.shape), yb.dtype)

model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for epoch in range(3):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(xb / 2.0), yb)
        loss.backward()
        opt.step()
        total += loss.item()
    print("epoch", epoch, r(total / len(keys)))

# two worker processes: the shards are split between them
wl = torch.utils.data.DataLoader(wds.WebDataset(url, shardshuffle=False).decode().to_tuple("__key__", "cls"),
                                 batch_size=6, num_workers=2)
got = [k for keys_, _ in wl for k in keys_]
print("workers", len(got), sorted(got) == [f"s{i:04d}" for i in range(48)], got[:3])

# the explicit DataPipeline, WebLoader with unbatched + rebatching, with_epoch
pipe = wds.DataPipeline(wds.SimpleShardList(url), wds.tarfile_to_samples(), wds.decode(), wds.to_tuple("pth", "json"),
                        wds.map(lambda s: (s[0].sum(), s[1]["even"])), wds.batched(5))
sums = [b for b in pipe]
print("pipeline", len(sums), r(sums[0][0]), sums[0][1].tolist() if hasattr(sums[0][1], "tolist") else sums[0][1])
web = wds.WebLoader(wds.WebDataset(url, shardshuffle=False).decode().to_tuple("npy", "cls").batched(4),
                    batch_size=None, num_workers=0).unbatched().batched(10).with_epoch(3)
outs = list(web)
print("webloader", len(outs), [type(o).__name__ for o in outs[0]], tuple(outs[0][0].shape), r(outs[0][0].sum()))
print("accuracy", r((model(torch.stack([f for f, *_ in ds])).argmax(-1) == torch.tensor([c for _, _, c, *_ in ds])).float().mean()))
shutil.rmtree(tmp)
