"""A small torch program that leans on einops (rearrange/reduce/repeat/einsum and its nn layers), safetensors'
torch API (save_file/load_file, save/load to bytes, safe_open) and tqdm.  Prints values to compare between
real torch and ``python -m torchlike run``."""
import os
import sys
import tempfile

import numpy as np
import torch
from einops import einsum, pack, rearrange, reduce, repeat, unpack
from einops.layers.torch import Rearrange, Reduce
from safetensors import safe_open
from safetensors.torch import load, load_file, save, save_file
from tqdm import tqdm

x = torch.from_numpy(np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5))
print("rearrange", tuple(rearrange(x, "b c h w -> b (h w) c").shape), rearrange(x, "b c h w -> (b c) h w")[4, 1].tolist())
print("reduce", reduce(x, "b c (h h2) w -> b c h w", "max", h2=2)[1, 2].tolist())
print("repeat", tuple(repeat(x[0, 0], "h w -> h w r", r=3).shape))
print("einsum", einsum(x, x, "b c h w, b c h w -> b c")[1].tolist())
packed, ps = pack([x[:, 0], x[:, 1:]], "b * w")
print("pack", tuple(packed.shape), [tuple(t.shape) for t in unpack(packed, ps, "b * w")])

torch.manual_seed(0)
model = torch.nn.Sequential(Rearrange("b c h w -> b (c h w)"), torch.nn.Linear(60, 8), torch.nn.ReLU(),
                            torch.nn.Linear(8, 3))
pool = Reduce("b c h w -> b c", "mean")
print("pool", pool(x)[0].tolist())
data = torch.from_numpy(np.random.default_rng(0).standard_normal((16, 3, 4, 5)).astype(np.float32))
target = torch.from_numpy(np.random.default_rng(1).integers(0, 3, (16,)))
with tempfile.TemporaryDirectory() as d:
    init = os.path.join(d, "init.safetensors")
    if len(sys.argv) > 1:  # shared initial weights: written by the first run, read by the second
        init = sys.argv[1]
    if os.path.exists(init):
        model.load_state_dict(load_file(init))
    else:
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, init)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in tqdm(range(5), disable=True):
        loss = torch.nn.functional.cross_entropy(model(data), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.5f}")
    path = os.path.join(d, "model.safetensors")
    save_file(model.state_dict(), path, metadata={"note": "tiny"})
    loaded = load_file(path)
    print("load_file", sorted(loaded), all(torch.equal(loaded[k], v) for k, v in model.state_dict().items()))
    with safe_open(path, framework="pt") as f:
        print("safe_open", f.metadata(), tuple(f.get_tensor("1.weight").shape), tuple(f.get_slice("1.weight")[2:4].shape))
    mixed = {"h": torch.arange(4, dtype=torch.float16), "b": torch.tensor([1.5, -2.0], dtype=torch.bfloat16),
             "i": torch.arange(3, dtype=torch.int64), "t": torch.tensor([True, False])}
    back = load(save(mixed))
    print("bytes", {k: (str(v.dtype), v.tolist()) for k, v in sorted(back.items())})
    try:
        save_file({"a": x, "b": x}, os.path.join(d, "shared.safetensors"))
    except RuntimeError as e:
        print("shared", type(e).__name__, "share memory" in str(e))
print("tqdm", sum(tqdm(range(10), disable=True)), len(list(tqdm(torch.arange(4), disable=True))))
