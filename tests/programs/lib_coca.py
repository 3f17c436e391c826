"""CoCa-pytorch (lucidrains): CoCa ("Contrastive Captioners"): a unimodal text decoder (parallel attention +
SwiGLU blocks with rotary embeddings, a text CLS token that ignores padding), attention pooling of image tokens
with learned queries, multimodal cross-attention layers, a captioning loss with a padding ignore_index plus a
symmetric contrastive loss with a learned temperature, weight-tied logits. Trained with AdamW from a small
convolutional image encoder, then from precomputed image tokens; embeddings, the tied weight's gradient, and a
state_dict round trip."""
import io

import torch
from coca_pytorch import CoCa
from torch import nn


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


class ConvEncoder(nn.Module):
    """images (b, 3, 16, 16) -> tokens (b, 16, 24)"""
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 12, 3, padding=1), nn.GELU(), nn.Conv2d(12, 24, 4, stride=4))

    def forward(self, x):
        return self.net(x).flatten(2).transpose(1, 2)


torch.manual_seed(0)
text = torch.randint(1, 30, (4, 10))
text[1, 7:] = 0  # padding
text[3, 5:] = 0
images = torch.randn(4, 3, 16, 16)

torch.manual_seed(1)
coca = CoCa(dim=32, num_tokens=30, unimodal_depth=1, multimodal_depth=1, dim_latents=16, image_dim=24,
            num_img_queries=6, dim_head=8, heads=2, ff_mult=2, img_encoder=ConvEncoder(),
            caption_loss_weight=1.0, contrastive_loss_weight=0.5)
print("params", sum(p.numel() for p in coca.parameters()), coca.is_distributed,
      coca.to_logits[-1].weight is coca.token_emb.weight)
opt = torch.optim.AdamW(coca.parameters(), lr=2e-3)
for step in range(6):
    opt.zero_grad()
    loss = coca(text=text, images=images, return_loss=True)
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("train", step, r(loss))
print("grads", r(coca.token_emb.weight.grad.norm()), r(coca.temperature.grad), r(coca.img_queries.grad.norm()))

coca.eval()
with torch.no_grad():
    text_embeds, image_embeds = coca(text=text, images=images, return_embeddings=True)
    logits = coca(text=text, images=images)
print("embeddings", tuple(text_embeds.shape), tuple(image_embeds.shape), r(text_embeds[0, :3]), r(image_embeds[1, :3]))
print("logits", tuple(logits.shape), r(logits[0, 0, :4]), logits[:, -1].argmax(-1).tolist())

# padding moves the CLS token (rotary positions), the embedding changes
with torch.no_grad():
    padded = torch.cat([text, torch.zeros(4, 3, dtype=torch.long)], dim=1)
    e2, _ = coca(text=padded, images=images, return_embeddings=True)
print("more padding", r((e2 - text_embeds).abs().max(dim=-1).values))

# precomputed image tokens instead of an encoder
torch.manual_seed(2)
tokens_only = CoCa(dim=16, num_tokens=30, unimodal_depth=2, multimodal_depth=1, image_dim=24, num_img_queries=4,
                   dim_head=8, heads=2)
image_tokens = torch.randn(4, 9, 24)
opt = torch.optim.SGD(tokens_only.parameters(), lr=0.1, momentum=0.9)
for step in range(3):
    opt.zero_grad()
    loss = tokens_only(text=text, image_tokens=image_tokens, labels=torch.roll(text, -1, dims=1),
                       return_loss=True)
    loss.backward()
    opt.step()
print("image tokens", r(loss), r(tokens_only.text_cls_token.grad.norm()))

buf = io.BytesIO()
torch.save(coca.state_dict(), buf)
buf.seek(0)
torch.manual_seed(9)
clone = CoCa(dim=32, num_tokens=30, unimodal_depth=1, multimodal_depth=1, dim_latents=16, image_dim=24,
             num_img_queries=6, dim_head=8, heads=2, ff_mult=2, img_encoder=ConvEncoder())
clone.load_state_dict(torch.load(buf))
clone.eval()
with torch.no_grad():
    print("reloaded", torch.allclose(clone(text=text, images=images), logits, atol=1e-6),
          sorted(n for n, _ in clone.named_buffers())[:2])
