"""rotary-embedding-torch: RotaryEmbedding (language, pixel and constant frequencies, partial and full dimension,
xpos, interpolation, cached and uncached), rotate_queries_or_keys, rotate_queries_and_keys,
rotate_queries_with_cached_keys, get_axial_freqs and apply_rotary_emb, forward and gradient.  Prints one line per measurement; run the same script with real torch and under
``python -m torchlike run`` and compare.
"""
import numpy as np
import torch
from rotary_embedding_torch import RotaryEmbedding, apply_rotary_emb

rng = np.random.default_rng(0)


def t(*shape):
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


def show(name, x):
    print(f"{name} {tuple(x.shape)} {x.sum().item():.5f} {x.abs().sum().item():.5f} {x.flatten()[:3].tolist()}")


q, k = t(2, 4, 16, 32), t(2, 4, 16, 32)
rot = RotaryEmbedding(dim=16)
show("rotate q", rot.rotate_queries_or_keys(q))
show("rotate q offset", rot.rotate_queries_or_keys(q, offset=3))
show("rotate q again (cached)", rot.rotate_queries_or_keys(q))
rot_full = RotaryEmbedding(dim=32, interpolate_factor=2.0, theta_rescale_factor=1.5, cache_if_possible=False)
show("rotate full dim, interpolated", rot_full.rotate_queries_or_keys(k))
rq, rk = rot.rotate_queries_with_cached_keys(q[:, :, -4:], k)
show("cached keys q", rq)
show("cached keys k", rk)
rot_xpos = RotaryEmbedding(dim=32, use_xpos=True)
rq, rk = rot_xpos.rotate_queries_and_keys(q, k)
show("xpos q", rq)
show("xpos k", rk)
rot_pix = RotaryEmbedding(dim=8, freqs_for="pixel", max_freq=64)
freqs = rot_pix.get_axial_freqs(4, 5)
show("axial freqs", freqs.cos())  # the raw frequencies sum to ~0 (cancellation): compare their cosines
img = t(1, 4, 5, 32)
show("axial apply", apply_rotary_emb(freqs, img))
rot_const = RotaryEmbedding(dim=8, freqs_for="constant", num_freqs=4)
show("constant freqs", rot_const(torch.arange(6).float()))
show("seq_before_head", RotaryEmbedding(dim=16, seq_before_head_dim=True).rotate_queries_or_keys(t(2, 16, 4, 32)))

rot_learned = RotaryEmbedding(dim=16, learned_freq=True)
qg = q.clone().requires_grad_(True)
out = rot_learned.rotate_queries_or_keys(qg)
(out * k).sum().backward()
show("grad q", qg.grad)
show("grad freqs", rot_learned.freqs.grad)
