"""reformer-pytorch as its users use it: a causal ``ReformerLM`` (LSH attention with several hash rounds,
reversible layers that replay the forward's RNG state in backward, chunked feed-forward, axial position
embeddings, a local-attention head and a product-key-memory layer) trained with Adam on a copy task through
``TrainingWrapper`` (padding, loss), sampling with top-k; a standalone ``LSHSelfAttention`` returning its
attention and buckets, ``Recorder`` collecting attention maps, ``Autopadder`` on a sequence of odd length,
and a small ``ReformerEncDec``; state_dict round trip."""
import io

import torch
from reformer_pytorch import Autopadder, LSHAttention, LSHSelfAttention, Recorder, ReformerEncDec, ReformerLM
from reformer_pytorch.generative_tools import TrainingWrapper


def r(x, n=4):
    return round(float(x), n)


def copy_batch(g, batch, half):
    src = torch.randint(2, 16, (batch, half), generator=g)
    return torch.cat([src, src], dim=1)


def main():
    torch.manual_seed(0)
    model = ReformerLM(num_tokens=16, dim=32, depth=2, max_seq_len=32, heads=2, dim_head=8, bucket_size=4,
                       n_hashes=2, causal=True, ff_chunks=2, axial_position_emb=True, axial_position_shape=(4, 8),
                       n_local_attn_heads=1, pkm_layers=(1,), pkm_num_keys=32)
    print("params", sum(p.numel() for p in model.parameters()))
    wrapper = TrainingWrapper(model, ignore_index=0, pad_value=0)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(1)
    for step in range(3):
        x = copy_batch(g, 4, 16)
        loss = wrapper(x, return_loss=True)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        print("step", step, r(loss.detach()))
    gsum = sum(p.grad.abs().sum() for p in model.parameters() if p.grad is not None)
    print("grad abs sum", r(gsum, 3))

    model.eval()
    with torch.no_grad():
        x = copy_batch(g, 2, 16)
        logits = model(x)
        print("logits", tuple(logits.shape), r(logits.sum(), 3), r(logits.std()))
        torch.manual_seed(3)
        out = wrapper.generate(x[:, :8], 2, temperature=1.0, filter_thres=0.9)
        print("generate", tuple(out.shape), out.dtype, out.tolist())

    # LSH attention alone: attention weights and buckets; LSHSelfAttention with gradients
    torch.manual_seed(4)
    lsh = LSHAttention(bucket_size=4, n_hashes=3, causal=False, return_attn=True)
    qk = torch.randn(2, 16, 8)
    v = torch.randn(2, 16, 8)
    y, weights, buckets = lsh(qk, v)
    print("lsh", tuple(y.shape), r(y.sum()), tuple(weights.shape), r(weights.sum(-1).mean()), tuple(buckets.shape),
          int(buckets.min()), int(buckets.max()), r(buckets.float().mean()))
    attn = LSHSelfAttention(dim=16, heads=2, bucket_size=4, n_hashes=2, causal=True)
    h = torch.randn(2, 16, 16, requires_grad=True)
    out = attn(h)
    out.pow(2).mean().backward()
    print("lsh self", tuple(out.shape), r(out.sum()), r(h.grad.abs().sum()), r(attn.toqk.weight.grad.abs().sum()))

    # a non-causal model under the Recorder, on an odd-length sequence through Autopadder
    torch.manual_seed(5)
    enc = ReformerLM(num_tokens=16, dim=16, depth=1, max_seq_len=32, heads=2, dim_head=8, bucket_size=4, n_hashes=1,
                     causal=False)
    rec = Recorder(Autopadder(enc))
    ids = torch.randint(1, 16, (1, 13))
    out = rec(ids)
    maps = rec.recordings[0]
    print("recorder", tuple(out.shape), len(maps), tuple(maps[0]["attn"].shape), r(maps[0]["attn"].sum(), 3))
    rec.turn_off()

    # encoder-decoder
    torch.manual_seed(6)
    encdec = ReformerEncDec(dim=16, enc_num_tokens=16, enc_depth=1, enc_max_seq_len=16, enc_heads=2, enc_dim_head=8,
                            enc_bucket_size=4, dec_num_tokens=16, dec_depth=1, dec_max_seq_len=16, dec_heads=2,
                            dec_dim_head=8, dec_bucket_size=4)
    src = torch.randint(1, 16, (2, 16))
    tgt = torch.randint(1, 16, (2, 16))
    opt2 = torch.optim.SGD(encdec.parameters(), lr=0.1)
    for step in range(1):
        loss = encdec(src, tgt, return_loss=True)
        opt2.zero_grad()
        loss.backward()
        opt2.step()
        print("encdec", step, r(loss))

    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    state = torch.load(buf)
    print("state", len(state), r(sum(v.float().abs().sum() for v in state.values()), 2))


if __name__ == "__main__":
    main()
