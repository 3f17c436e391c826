"""x-transformers: a tiny decoder-only TransformerWrapper (rotary positions, GQA-style kv heads, RMSNorm,
GLU feedforward) wrapped in AutoregressiveWrapper, trained a few AdamW steps and sampled greedily; an
encoder with absolute positions and an XTransformer encoder-decoder forward and loss.  Prints one line per
measurement; run the same script with real torch and under ``python -m torchlike run`` and compare.
"""
import numpy as np
import torch
from x_transformers import AutoregressiveWrapper, Decoder, Encoder, TransformerWrapper, XTransformer

rng = np.random.default_rng(0)


def ids(*shape, high=40):
    return torch.from_numpy(rng.integers(0, high, shape))


torch.manual_seed(0)
model = TransformerWrapper(num_tokens=40, max_seq_len=32,
                           attn_layers=Decoder(dim=32, depth=2, heads=4, attn_kv_heads=2, rotary_pos_emb=True,
                                               use_rmsnorm=True, ff_glu=True, attn_dim_head=8))
print("decoder parameters", sum(p.numel() for p in model.parameters()))
x = ids(2, 16)
with torch.no_grad():
    logits = model(x)
print(f"logits {tuple(logits.shape)} {logits.abs().sum().item():.4f} {logits[0, 0, :3].tolist()}")

ar = AutoregressiveWrapper(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
batch = ids(4, 17)
for step in range(4):
    loss = ar(batch)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"decoder step {step} loss {loss.item():.5f}")
model.eval()
out = ar.generate(batch[:2, :4], seq_len=6, temperature=0.0)
print("greedy continuation", out.tolist())

torch.manual_seed(1)
enc = TransformerWrapper(num_tokens=40, max_seq_len=16, attn_layers=Encoder(dim=32, depth=1, heads=2))
mask = torch.ones(2, 12, dtype=torch.bool)
mask[1, 8:] = False
with torch.no_grad():
    emb = enc(ids(2, 12), mask=mask, return_embeddings=True)
print(f"encoder embeddings {tuple(emb.shape)} {emb.abs().sum().item():.4f}")

torch.manual_seed(2)
xt = XTransformer(dim=32, enc_num_tokens=40, enc_depth=1, enc_heads=2, enc_max_seq_len=16, dec_num_tokens=40,
                  dec_depth=1, dec_heads=2, dec_max_seq_len=16, tie_token_emb=True)
src, tgt = ids(2, 10), ids(2, 9)
loss = xt(src, tgt, mask=torch.ones(2, 10, dtype=torch.bool))
loss.backward()
print(f"xtransformer loss {loss.item():.5f} grad {xt.encoder.token_emb.emb.weight.grad.abs().sum().item():.5f}")
