"""vit-pytorch (lucidrains): ViT and SimpleViT trained a few Adam steps on seeded random images; a DistillableViT
student distilled from a small ViT teacher with DistillWrapper (soft and hard), then ``to_vit()``; CaiT (with layer
dropout) and CrossViT; MAE pre-training of a ViT encoder (random masking, index scatter); and NaViT on a batch of
variable-resolution images (packed sequences, attention and key-padding masks, token dropout, grouping by
``max_seq_len``); then one forward/backward of LeViT (BatchNorm, relative position bias), MaxViT (MBConv with
squeeze-excitation, block and grid attention) and MobileViT (convolutions around transformers). Prints losses, logits, parameter counts and norms, rounded.

vit_pytorch's package ``__init__`` imports ``dino``, which imports torchvision; the torchvision wheel here may be a
CUDA build whose ``_C`` cannot load on a CPU-only torch, so the two operator schemas its import names are defined
first (tests/programs/_torchvision_schemas.py)."""
import io

import torch
import torch.nn.functional as F
from _torchvision_schemas import load_or_define

_LIB = load_or_define()

from vit_pytorch import MAE, SimpleViT, ViT  # noqa: E402
from vit_pytorch.cait import CaiT  # noqa: E402
from vit_pytorch.cross_vit import CrossViT  # noqa: E402
from vit_pytorch.distill import DistillableViT, DistillWrapper  # noqa: E402
from vit_pytorch.levit import LeViT  # noqa: E402
from vit_pytorch.max_vit import MaxViT  # noqa: E402
from vit_pytorch.mobile_vit import MobileViT  # noqa: E402
from vit_pytorch.na_vit import NaViT, group_images_by_max_seq_len  # noqa: E402


def r(x, n=4):
    return round(float(x), n)


def rl(t, n=4, k=6):
    return [r(v, n) for v in t.detach().flatten()[:k]]


def nparams(m):
    return sum(p.numel() for p in m.parameters())


def pnorm(m):
    return r(sum(float(p.detach().pow(2).sum()) for p in m.parameters()) ** 0.5)


def train(model, loss_fn, steps=3, lr=1e-3):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        opt.step()
        losses.append(r(loss.detach()))
    return losses


torch.manual_seed(0)
imgs = torch.randn(4, 3, 32, 32)
labels = torch.tensor([0, 1, 2, 3])

# ViT: cls pooling, dropout on; then eval and a state_dict round trip
torch.manual_seed(1)
vit = ViT(image_size=32, patch_size=8, num_classes=4, dim=32, depth=2, heads=4, mlp_dim=64, dim_head=8,
          dropout=0.1, emb_dropout=0.1)
print("vit params", nparams(vit), "norm", pnorm(vit))
print("vit losses", train(vit, lambda: F.cross_entropy(vit(imgs), labels)))
vit.eval()
with torch.no_grad():
    out = vit(imgs)
print("vit eval", list(out.shape), rl(out), "pred", out.argmax(-1).tolist())
buf = io.BytesIO()
torch.save(vit.state_dict(), buf)
buf.seek(0)
vit2 = ViT(image_size=32, patch_size=8, num_classes=4, dim=32, depth=2, heads=4, mlp_dim=64, dim_head=8).eval()
vit2.load_state_dict(torch.load(buf, weights_only=True))
with torch.no_grad():
    print("vit reload same", bool(torch.equal(vit2(imgs), out)))

# ViT with mean pooling and one channel, rectangular images
torch.manual_seed(2)
vm = ViT(image_size=(16, 24), patch_size=8, num_classes=3, dim=16, depth=1, heads=2, mlp_dim=32, dim_head=8,
         pool="mean", channels=1)
gray = torch.randn(2, 1, 16, 24)
print("vit mean", nparams(vm), rl(vm(gray)))

# SimpleViT: 2d sincos positional embedding, mean pooling
torch.manual_seed(3)
sv = SimpleViT(image_size=32, patch_size=8, num_classes=4, dim=32, depth=2, heads=4, mlp_dim=64, dim_head=8)
print("simplevit params", nparams(sv), "norm", pnorm(sv))
print("simplevit losses", train(sv, lambda: F.cross_entropy(sv(imgs), labels)))
print("simplevit pos", list(sv.pos_embedding.shape), rl(sv.pos_embedding[3], 4, 4))

# distillation: a small ViT teacher, a DistillableViT student
torch.manual_seed(4)
teacher = ViT(image_size=32, patch_size=16, num_classes=4, dim=16, depth=1, heads=2, mlp_dim=32, dim_head=8).eval()
student = DistillableViT(image_size=32, patch_size=8, num_classes=4, dim=32, depth=2, heads=4, mlp_dim=64,
                         dim_head=8, dropout=0.1, emb_dropout=0.1)
soft = DistillWrapper(teacher=teacher, student=student, temperature=3.0, alpha=0.5)
print("distill soft losses", train(soft, lambda: soft(imgs, labels)))
hard = DistillWrapper(teacher=teacher, student=student, alpha=0.3, hard=True, mlp_layernorm=True)
print("distill hard losses", train(hard, lambda: hard(imgs, labels), steps=2))
print("teacher grads", all(p.grad is None for p in teacher.parameters()))
plain = student.to_vit().eval()
student.eval()
with torch.no_grad():
    a, b = plain(imgs), student(imgs)
    logits, tok = student(imgs, distill_token=soft.distillation_token)
print("to_vit", type(plain).__name__, bool(torch.allclose(a, b)), list(tok.shape), rl(logits))

# CaiT: patch transformer then class-attention layers with LayerScale; layer dropout in training
torch.manual_seed(5)
cait = CaiT(image_size=32, patch_size=8, num_classes=4, dim=32, depth=2, cls_depth=1, heads=4, mlp_dim=64,
            dim_head=8, dropout=0.1, emb_dropout=0.1, layer_dropout=0.25)
print("cait params", nparams(cait), "norm", pnorm(cait))
print("cait losses", train(cait, lambda: F.cross_entropy(cait(imgs), labels)))
cait.eval()
with torch.no_grad():
    print("cait eval", rl(cait(imgs)))

# CrossViT: small and large patch branches with cross attention
torch.manual_seed(6)
cross = CrossViT(image_size=32, num_classes=4, sm_dim=16, lg_dim=32, sm_patch_size=8, sm_enc_depth=1,
                 sm_enc_heads=2, sm_enc_mlp_dim=32, sm_enc_dim_head=8, lg_patch_size=16, lg_enc_depth=1,
                 lg_enc_heads=2, lg_enc_mlp_dim=64, lg_enc_dim_head=8, cross_attn_depth=1, cross_attn_heads=2,
                 cross_attn_dim_head=8, depth=2, dropout=0.1, emb_dropout=0.1)
print("crossvit params", nparams(cross), "norm", pnorm(cross))
print("crossvit losses", train(cross, lambda: F.cross_entropy(cross(imgs), labels)))

# MAE pre-training of a ViT encoder (mean pooling: this MAE indexes a cls encoder's 2-d pos_embedding as 3-d),
# then the encoder classifies
torch.manual_seed(7)
enc = ViT(image_size=32, patch_size=8, num_classes=4, dim=32, depth=2, heads=4, mlp_dim=64, dim_head=8, pool="mean")
mae = MAE(encoder=enc, decoder_dim=24, masking_ratio=0.75, decoder_depth=1, decoder_heads=2, decoder_dim_head=8)
print("mae params", nparams(mae), "decoder", nparams(mae.decoder))
print("mae losses", train(mae, lambda: mae(imgs), steps=4))
enc.eval()
with torch.no_grad():
    print("mae encoder", rl(enc(imgs)))

# NaViT: variable resolution images packed into sequences
torch.manual_seed(8)
nav = NaViT(image_size=32, patch_size=8, num_classes=5, dim=32, depth=2, heads=4, mlp_dim=64, dim_head=8,
            dropout=0.1, emb_dropout=0.1, token_dropout_prob=0.25)
print("navit params", nparams(nav), "norm", pnorm(nav))
batch = [
    [torch.randn(3, 32, 32), torch.randn(3, 16, 24)],
    [torch.randn(3, 24, 32)],
    [torch.randn(3, 8, 16), torch.randn(3, 16, 8), torch.randn(3, 32, 16)],
]
nlabels = torch.tensor([0, 1, 2, 3, 4, 0])
out = nav(batch)
print("navit train out", list(out.shape), rl(out, 3, 4))
print("navit losses", train(nav, lambda: F.cross_entropy(nav(batch), nlabels)))
nav.eval()
with torch.no_grad():
    ev = nav(batch)
    flat = [img for group in batch for img in group]
    grouped = nav(flat, group_images=True, group_max_seq_len=20)
print("navit eval", list(ev.shape), rl(ev), "pred", ev.argmax(-1).tolist())
groups = group_images_by_max_seq_len(flat, patch_size=8, max_seq_len=20)
print("navit groups", [len(g) for g in groups], list(grouped.shape), rl(grouped))
with torch.no_grad():
    single = torch.cat([nav([[img]]) for img in flat])
print("navit packed vs single", bool(torch.allclose(single, ev, atol=1e-4)))


# one forward/backward each of three convolutional hybrids (training mode: BatchNorm batch statistics)
for name, make, shape in (
        ("levit", lambda: LeViT(image_size=64, num_classes=4, stages=3, dim=(32, 48, 64), depth=1, heads=(2, 3, 4),
                                mlp_mult=2), (2, 3, 64, 64)),
        ("maxvit", lambda: MaxViT(num_classes=4, dim_conv_stem=16, dim=16, dim_head=8, depth=(1, 1), window_size=4),
         (2, 3, 32, 32)),
        ("mobilevit", lambda: MobileViT(image_size=(64, 64), dims=[24, 32, 40],
                                        channels=[8, 8, 16, 16, 24, 24, 32, 32, 40, 40, 64], num_classes=4),
         (2, 3, 64, 64))):
    torch.manual_seed(9)
    model = make()
    out = model(torch.randn(*shape))
    out.pow(2).mean().backward()
    gnorm = sum(float(p.grad.pow(2).sum()) for p in model.parameters() if p.grad is not None) ** 0.5
    print(name, "params", nparams(model), list(out.shape), rl(out, 4, 4), "grad norm", float(f"{gnorm:.4g}"))
