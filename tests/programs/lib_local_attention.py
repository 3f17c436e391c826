"""local-attention (windowed attention): LocalAttention causal and bidirectional, look-backward/look-forward,
exact window sizes, autopadding, key padding masks, shared query/key, rotary and xpos embeddings, an
attention bias; each checked against a dense masked-softmax reference, with gradients.  Then LocalTransformer
(hyper-connection residual streams, GEGLU feed-forwards, dynamic position bias) trained a few steps with
Adam, and `generate` with and without the key/value cache (greedy decoding gives the same tokens both ways).
"""
import torch
from local_attention import LocalAttention, LocalTransformer


def r(x, n=4):
    return round(float(x), n)


def dense_reference(q, k, v, window, backward, forward, causal, exact):
    """Full attention where query i sees key j when both windows are within reach (the library's rule)."""
    n = q.shape[-2]
    i = torch.arange(n)[:, None]
    j = torch.arange(n)[None, :]
    wi, wj = i // window, j // window
    allowed = (wj >= wi - backward) & (wj <= wi + forward)
    if causal:
        allowed &= j <= i
        if exact:
            allowed &= i <= j + window * backward
    elif exact:
        allowed &= (j - window * forward <= i) & (i <= j + window * backward)
    sim = q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5
    sim = sim.masked_fill(~allowed, -torch.finfo(sim.dtype).max)
    return sim.softmax(-1) @ v


def local_attention():
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 32, 8, requires_grad=True) for _ in range(3))
    for causal, backward, forward, exact in [(True, 1, 0, False), (True, 2, 0, True), (False, 1, 1, False),
                                             (False, 1, 0, True)]:
        attn = LocalAttention(window_size=8, causal=causal, look_backward=backward, look_forward=forward,
                              exact_windowsize=exact, use_rotary_pos_emb=False)
        out = attn(q, k, v)
        ref = dense_reference(q, k, v, 8, backward, forward, causal, exact)
        out.pow(2).sum().backward()
        print("local", causal, backward, forward, exact, tuple(out.shape), r(out.sum()),
              bool(torch.allclose(out, ref, atol=1e-5)), r(q.grad.norm()), r(v.grad.norm()))
        q.grad = k.grad = v.grad = None

    torch.manual_seed(1)
    x = torch.randn(2, 30, 16)
    mask = torch.ones(2, 30, dtype=torch.bool)
    mask[1, 25:] = False
    attn = LocalAttention(window_size=8, causal=False, autopad=True, dim=16)
    out = attn(x, x, x, mask=mask)
    print("autopad rotary mask", tuple(out.shape), r(out.sum()), r(out[1, -1].sum()))
    shared = LocalAttention(window_size=8, causal=True, shared_qk=True, autopad=True, dim=16)
    print("shared qk", r(shared(x, x, x).sum()))
    xpos = LocalAttention(window_size=8, causal=True, use_xpos=True, dim=16, autopad=True)
    print("xpos", r(xpos(x, x, x).sum()), r(xpos(x[:, :24], x[:, :24], x[:, :24], window_size=12).sum()))
    bias = torch.randn(2, 8, 16)
    biased = LocalAttention(window_size=8, causal=True, dim=16)
    print("attn bias", r(biased(x[:, :16], x[:, :16], x[:, :16], attn_bias=bias).sum()))


def local_transformer():
    torch.manual_seed(2)
    model = LocalTransformer(num_tokens=50, max_seq_len=32, dim=32, depth=2, heads=2, dim_head=16,
                             local_attn_window_size=8, causal=True, use_dynamic_pos_bias=False,
                             num_residual_streams=2, gate_values_per_head=True)
    print("transformer params", sum(p.numel() for p in model.parameters()))
    data = torch.randint(0, 50, (4, 33))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    losses = []
    for _ in range(5):
        loss = model(data, return_loss=True)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(r(loss.item()))
    print("transformer losses", losses)

    prime = data[:2, :5]
    greedy_cached = model.generate(prime, 5, temperature=0.0, use_kv_cache=True)
    greedy_full = model.generate(prime, 5, temperature=0.0, use_kv_cache=False)
    print("greedy", greedy_cached.tolist(), bool(torch.equal(greedy_cached, greedy_full)))
    torch.manual_seed(3)
    print("sampled", model.generate(prime, 4, temperature=1.0, filter_thres=0.8).tolist())
    logits, cache = model(data[:1, :9], return_cache=True)
    print("cache", tuple(logits.shape), len(cache.cache_kv), tuple(cache.cache_kv[0].shape))

    torch.manual_seed(4)
    dyn = LocalTransformer(num_tokens=20, max_seq_len=16, dim=16, depth=1, heads=2, dim_head=8,
                           local_attn_window_size=4, causal=False, look_forward=0, use_dynamic_pos_bias=True,
                           num_residual_streams=1)
    tokens = torch.randint(0, 20, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.bool)
    mask[0, 12:] = False
    loss = dyn(tokens, mask=mask).logsumexp(-1).mean()
    loss.backward()
    print("dynamic bias", r(loss), r(dyn.dynamic_pos_bias.mlp[0].weight.grad.norm() * 1e3))


def main():
    local_attention()
    local_transformer()


if __name__ == "__main__":
    main()
