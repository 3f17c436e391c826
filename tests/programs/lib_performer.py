"""performer-pytorch and linear-attention-transformer (linear-time attention language models): FAVOR+
softmax-kernel attention with orthogonal random features (QR), generalized ReLU-kernel attention, the
non-causal and chunked causal linear attention, rotary/axial/absolute position embeddings, mixed
local-attention heads, token shifting, the reversible sequence (custom autograd that recomputes activations),
PerformerLM training steps with Adam through the AutoregressiveWrapper, projection redraws
(feature_redraw_interval), sampling with top-k, and LinearAttentionTransformerLM training steps and
generation.
"""
import torch
import torch.nn.functional as F
from performer_pytorch import FastAttention, Performer, PerformerLM
from performer_pytorch.autoregressive_wrapper import AutoregressiveWrapper
from linear_attention_transformer import LinearAttentionTransformerLM
from linear_attention_transformer.autoregressive_wrapper import AutoregressiveWrapper as LATWrapper


def r(x, n=4):
    return round(float(x), n)


def rl(t, n=4):
    return [r(v, n) for v in t.flatten().tolist()]


def train(name, wrapper, data, steps, lr=3e-3):
    opt = torch.optim.Adam(wrapper.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        loss = wrapper(data, return_loss=True)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(wrapper.parameters(), 0.5)
        opt.step()
        losses.append(r(loss.item()))
    print(name, "losses", losses)


def fast_attention():
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 16, 8) for _ in range(3))
    soft = FastAttention(dim_heads=8, nb_features=32)
    print("favor projection", tuple(soft.projection_matrix.shape), rl(soft.projection_matrix[0, :4]))
    out = soft(q, k, v)
    exact = torch.softmax(q @ k.transpose(-1, -2) / 8 ** 0.5, dim=-1) @ v
    print("favor out", tuple(out.shape), r(out.sum()), r((out - exact).abs().mean(), 3))
    gen = FastAttention(dim_heads=8, nb_features=16, generalized_attention=True, kernel_fn=torch.nn.ReLU())
    print("generalized out", r(gen(q, k, v).sum()))
    causal = FastAttention(dim_heads=8, nb_features=16, causal=True)
    out = causal(q, k, v)
    # causality: changing the last key/value leaves every earlier output unchanged
    k2, v2 = k.clone(), v.clone()
    k2[:, :, -1] += 1.0
    v2[:, :, -1] -= 2.0
    out2 = causal(q, k2, v2)
    print("causal out", r(out.sum()), bool(torch.allclose(out[:, :, :-1], out2[:, :, :-1], atol=1e-5)),
          bool((out[:, :, -1] - out2[:, :, -1]).abs().max() > 1e-3))
    noproj = FastAttention(dim_heads=8, no_projection=True)
    print("no projection", r(noproj(q, k, v).sum()))
    soft.redraw_projection_matrix(q.device)
    print("redrawn", rl(soft.projection_matrix[0, :4]))


def performer_encoder():
    torch.manual_seed(1)
    model = Performer(dim=32, depth=2, heads=4, dim_head=8, local_attn_heads=(2, 0), local_window_size=8,
                      nb_features=16, reversible=True, ff_chunks=2, use_scalenorm=True, shift_tokens=True)
    # the reversible function's only tensor input is x: it must require grad for backward to reach the blocks
    x = torch.randn(2, 16, 32, requires_grad=True)
    mask = torch.ones(2, 16, dtype=torch.bool)
    mask[1, 12:] = False
    out = model(x, mask=mask)
    out.square().mean().backward()
    grads = [p.grad.norm() for p in model.parameters() if p.grad is not None]
    print("reversible encoder", tuple(out.shape), r(out.sum()), r(out[0, 0, :3].sum()), len(grads),
          r(sum(grads), 3), r(x.grad.norm()))


def performer_lm():
    torch.manual_seed(2)
    model = PerformerLM(num_tokens=40, max_seq_len=32, dim=32, depth=2, heads=4, dim_head=8, causal=True,
                        nb_features=16, feature_redraw_interval=3, local_attn_heads=1, local_window_size=8,
                        ff_glu=True, emb_dropout=0.1, attn_dropout=0.1, ff_dropout=0.1)
    print("performer params", sum(p.numel() for p in model.parameters()))
    wrapper = AutoregressiveWrapper(model)
    data = torch.randint(0, 40, (4, 33))
    proj = next(m for m in model.modules() if isinstance(m, FastAttention)).projection_matrix
    before = proj.clone()
    train("performer", wrapper, data, 5)
    print("redraw calls", int(model.performer.proj_updater.calls_since_last_redraw),
          bool(torch.equal(before, proj)), rl(proj[0, :3]))
    model.fix_projection_matrices_()
    model.eval()
    with torch.no_grad():
        logits = model(data[:, :32])
        enc = model(data[:, :32], return_encodings=True)
    print("performer eval", tuple(logits.shape), r(logits.mean()), r(logits.std()), tuple(enc.shape),
          r(F.cross_entropy(logits.transpose(1, 2), data[:, 1:]), 3))
    torch.manual_seed(3)
    sample = wrapper.generate(data[:1, :4], 6, temperature=1.0)
    print("performer generate", tuple(sample.shape), sample.tolist())

    axial = PerformerLM(num_tokens=20, max_seq_len=16, dim=16, depth=1, heads=2, dim_head=8, nb_features=8,
                        rotary_position_emb=False, axial_position_emb=True, axial_position_shape=(4, 4),
                        generalized_attention=True, tie_embed=True)
    absolute = PerformerLM(num_tokens=20, max_seq_len=16, dim=16, depth=1, heads=2, dim_head=8, nb_features=8,
                           rotary_position_emb=False, use_rezero=True)
    tokens = torch.randint(0, 20, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.bool)
    print("axial/absolute", r(axial(tokens, mask=mask).sum(), 3), r(absolute(tokens).sum(), 3))


def linear_attention_lm():
    torch.manual_seed(4)
    model = LinearAttentionTransformerLM(num_tokens=40, dim=32, heads=4, dim_head=8, depth=2, max_seq_len=32,
                                         causal=True, n_local_attn_heads=2, local_attn_window_size=8,
                                         ff_glu=True, blindspot_size=2, shift_tokens=True)
    print("linear params", sum(p.numel() for p in model.parameters()))
    wrapper = LATWrapper(model)
    data = torch.randint(0, 40, (4, 33))
    train("linear", wrapper, data, 5)
    model.eval()
    with torch.no_grad():
        out = model(data[:, :32])
    print("linear eval", tuple(out.shape), r(out.mean()), r(out.std()))
    torch.manual_seed(5)
    print("linear generate", wrapper.generate(data[0, :5], 6).tolist())

    torch.manual_seed(6)
    enc = LinearAttentionTransformerLM(num_tokens=30, dim=32, heads=4, dim_head=8, depth=1, max_seq_len=16,
                                       use_rotary_emb=True, reversible=True, ff_chunks=2,
                                       return_embeddings=True, attn_layer_dropout=0.1)
    tokens = torch.randint(0, 30, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.bool)
    mask[0, 10:] = False
    out = enc(tokens, input_mask=mask)
    (out[..., :4] ** 3).mean().backward()
    print("linear encoder", tuple(out.shape), r(out.abs().sum(), 3), r(out[0, :3, 0].sum()),
          r(enc.token_emb.weight.grad.norm(), 4))


def main():
    fast_attention()
    performer_encoder()
    performer_lm()
    linear_attention_lm()


if __name__ == "__main__":
    main()
