"""The less-used corners of einops (EinMix layers, parse_shape, pack/unpack with several wildcard shapes, reduce
with a callable, rearrange of a list, einops.einsum with ellipsis, asnumpy) and of safetensors' torch API
(save_model/load_model with tied weights, get_slice with steps and several dims, slice metadata,
storage-sharing detection on views) compared between real torch and ``python -m torchlike run``."""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
from einops import asnumpy, einsum, pack, parse_shape, rearrange, reduce, repeat, unpack
from einops.layers.torch import EinMix, Rearrange, Reduce
from safetensors import safe_open
from safetensors.torch import load_file, load_model, save_file, save_model


def show(name, t):
    t = t.detach()
    flat = " ".join(f"{v:.4f}" for v in t.double().flatten()[:6].tolist())
    print(name, tuple(t.shape), str(t.dtype).split(".")[-1], flat)


torch.manual_seed(0)
x = torch.randn(2, 3, 4, 6)
print("parse_shape", parse_shape(x, "b c h w"), parse_shape(x, "b _ h _"), parse_shape(x, "batch ..."))
show("rearrange_list", rearrange([x[0, 0], x[1, 0]], "n h w -> h (n w)"))
show("rearrange_ellipsis", rearrange(x, "b ... w -> b w ..."))
show("reduce_callable", reduce(x, "b c h w -> b h", lambda t, axis: t.abs().amax(dim=axis)))
show("reduce_prod", reduce(x, "b c (h h2) w -> b c h", "prod", h2=2))
show("reduce_any", reduce(x > 1, "b c h w -> b", "any").float())
show("repeat_new", repeat(x[0, 0, 0], "w -> (r w) c", r=2, c=3))
show("einsum_ellipsis", einsum(x, torch.randn(6, 5), "... w, w k -> ... k"))
print("asnumpy", type(asnumpy(x)).__name__, asnumpy(x).shape)
packed, ps = pack([x, x[:, 0], x[0, 0, 0]], "* w")
print("pack", tuple(packed.shape), ps)
print("unpack", [tuple(t.shape) for t in unpack(packed * 2, ps, "* w")])
packed2, ps2 = pack([torch.zeros(2, 5), torch.zeros(2, 3, 4, 5)], "b * c")
print("pack2", tuple(packed2.shape), ps2)

torch.manual_seed(1)
mix = EinMix("b t c -> b t c2", weight_shape="c c2", bias_shape="c2", c=6, c2=4)
mix_grouped = EinMix("b (g c) -> b (g c2)", weight_shape="g c c2", g=2, c=3, c2=5)
mix_t = EinMix("b t c -> b c t2", weight_shape="t t2", bias_shape="t2", t=4, t2=3)
model = nn.Sequential(Rearrange("b c h w -> b h (c w)", c=3), nn.Linear(18, 6), nn.GELU(), mix, mix_t,
                      Reduce("b c t -> b c", "mean"))
print("einmix repr", repr(mix), [tuple(p.shape) for p in mix.parameters()], [n for n, _ in model.named_parameters()])
show("einmix_grouped", mix_grouped(torch.randn(3, 6)))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(3):
    opt.zero_grad()
    loss = (model(x) ** 2).mean()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.5f}")


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(7, 4)
        self.head = nn.Linear(4, 7, bias=False)
        self.head.weight = self.emb.weight
        self.register_buffer("table", torch.arange(12.0).reshape(3, 4))
        self.register_buffer("row", self.table[1])  # a view sharing storage with table


with tempfile.TemporaryDirectory() as d:
    torch.manual_seed(2)
    m = Tied()
    path = os.path.join(d, "tied.safetensors")
    try:
        save_file(m.state_dict(), path)
        print("save_file shared: no error")
    except RuntimeError as e:
        print("save_file shared", type(e).__name__, "share memory" in str(e))
    save_model(m, path, metadata={"k": "v"})
    print("saved keys", sorted(load_file(path)))
    m2 = Tied()
    missing, unexpected = load_model(m2, path)
    print("load_model", sorted(missing), sorted(unexpected), m2.head.weight is m2.emb.weight,
          torch.equal(m2.emb.weight, m.emb.weight), m2.row.tolist())
    big = {"a": torch.arange(60.0).reshape(3, 4, 5), "b": torch.arange(10, dtype=torch.int32),
           "c": torch.tensor([[1.5, 2.5], [3.5, 4.5]], dtype=torch.bfloat16)}
    save_file(big, os.path.join(d, "big.safetensors"))
    with safe_open(os.path.join(d, "big.safetensors"), framework="pt", device="cpu") as f:
        print("keys", list(f.keys()), f.metadata())
        sl = f.get_slice("a")
        print("slice meta", sl.get_shape(), sl.get_dtype())
        show("slice_a", sl[1:, ::2, 3])
        show("slice_a2", sl[:, 2])
        show("slice_a3", sl[-1])
        show("slice_b", f.get_slice("b")[2:9:3])
        show("slice_c", f.get_slice("c")[:, 1:])
        show("tensor_c", f.get_tensor("c"))
    try:
        save_file({"nc": torch.arange(6.0).reshape(2, 3).t()}, os.path.join(d, "nc.safetensors"))
        print("non-contiguous saved")
    except ValueError as e:
        print("non-contiguous", type(e).__name__)
    print("np", np.asarray(load_file(os.path.join(d, "big.safetensors"))["b"]).tolist())
