"""perceiver-pytorch: a Perceiver classifying tiny images (Fourier-encoded positions, cross attention into
latents, weight-tied latent self-attention, masked inputs, inverted cross attention, attention residuals) trained
a few steps with Adam; PerceiverIO decoding per-query outputs with backward; PerceiverLM training steps; and a
state_dict save/load round trip.
"""
import io

import torch
import torch.nn.functional as F
from perceiver_pytorch import Perceiver, PerceiverIO, PerceiverLM


def r(x, n=4):
    return round(float(x), n)


def perceiver_classifier():
    torch.manual_seed(0)
    model = Perceiver(input_channels=3, input_axis=2, num_freq_bands=4, max_freq=5.0, depth=2, num_latents=8,
                      latent_dim=32, cross_heads=1, latent_heads=4, cross_dim_head=16, latent_dim_head=8,
                      num_classes=5, weight_tie_layers=True, self_per_cross_attn=2, attn_dropout=0.1,
                      ff_dropout=0.1)
    print("perceiver params", sum(p.numel() for p in model.parameters()), len(model.layers),
          model.layers[0] is model.layers[1])
    images = torch.randn(6, 8, 8, 3)
    labels = torch.randint(0, 5, (6,))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for _ in range(4):
        loss = F.cross_entropy(model(images), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(r(loss.item()))
    print("perceiver losses", losses)
    model.eval()
    with torch.no_grad():
        logits = model(images)
        mask = torch.ones(6, 8, 8, dtype=torch.bool)
        mask[:, 4:] = False
        masked = model(images, mask=mask)
        emb, hiddens = model(images, return_embeddings=True, return_hiddens=True)
    print("perceiver eval", tuple(logits.shape), r(logits.sum()), r(masked.sum()), tuple(emb.shape), len(hiddens))

    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    state = torch.load(buffer)
    print("state", len(state), sorted(state)[:2])

    torch.manual_seed(1)
    variant = Perceiver(input_channels=4, input_axis=1, num_freq_bands=3, max_freq=4.0, depth=2, num_latents=6,
                        latent_dim=16, latent_heads=2, cross_dim_head=8, latent_dim_head=8, num_classes=3,
                        inverted_cross_attn=(True, False), attn_residual=True, attn_residual_rank=4)
    seq = torch.randn(2, 12, 4, requires_grad=True)
    out = variant(seq)
    out.sum().backward()
    print("inverted+residual", tuple(out.shape), r(out.sum()), r(seq.grad.norm()))


def perceiver_io():
    torch.manual_seed(2)
    model = PerceiverIO(dim=16, queries_dim=12, logits_dim=7, depth=2, num_latents=8, latent_dim=24,
                        cross_heads=1, latent_heads=4, cross_dim_head=8, latent_dim_head=6, weight_tie_layers=False,
                        decoder_ff=True, seq_dropout_prob=0.2)
    data = torch.randn(2, 20, 16)
    queries = torch.randn(10, 12)
    mask = torch.ones(2, 20, dtype=torch.bool)
    mask[0, 15:] = False
    out = model(data, mask=mask, queries=queries)
    out.pow(2).mean().backward()
    grad = model.latents.grad.norm()
    print("perceiver io", tuple(out.shape), r(out.sum()), r(grad))
    model.eval()
    latents = model(data, mask=mask)
    print("io latents", tuple(latents.shape), r(latents.mean()))

    torch.manual_seed(3)
    lm = PerceiverLM(num_tokens=30, dim=16, depth=1, max_seq_len=16, num_latents=6, latent_dim=16,
                     cross_heads=1, latent_heads=2, cross_dim_head=8, latent_dim_head=8)
    tokens = torch.randint(0, 30, (3, 16))
    opt = torch.optim.Adam(lm.parameters(), lr=3e-3)
    losses = []
    for _ in range(4):
        logits = lm(tokens)
        loss = F.cross_entropy(logits.transpose(1, 2), tokens)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(r(loss.item()))
    print("perceiver lm", tuple(logits.shape), losses)


def main():
    perceiver_classifier()
    perceiver_io()


if __name__ == "__main__":
    main()
