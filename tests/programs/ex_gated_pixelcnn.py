"""A class-conditional Gated PixelCNN (van den Oord et al. 2016; ritheshkumar95/pytorch-vqvae and
anordertoreclaim/PixelCNN idioms; own code, synthetic binary-ish 8x8 images with 4 intensity levels).

``GatedMaskedConv2d`` with separate vertical and horizontal stacks: the vertical kernel ``(k // 2 + 1, k)`` and the
horizontal ``(1, k // 2 + 1)`` with the blind spot removed by zeroing ``weight.data[:, :, -1]`` /
``[:, :, :, -1]`` in a ``make_causal`` for the first layer ('A' mask), the vertical-to-horizontal link
``Conv2d(2d, 2d, 1)`` on the vertical output shifted down by slicing, the ``tanh * sigmoid`` gate on
``chunk(2, dim=1)``, a class ``Embedding`` added as conditioning, residual horizontal connections; ``permute`` to
(B, C, H, W) embeddings, 4-way logits and ``cross_entropy``; the receptive field checked by the gradient of one
output pixel with respect to the input (no future pixels); Adam with ``OneCycleLR``, ``clip_grad_norm_``,
bits-per-dim evaluation under ``torch.no_grad``, pixel-by-pixel ``torch.multinomial`` sampling with a
``torch.Generator`` and a ``state_dict`` round trip."""
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
LEVELS, SIZE, N_CLASSES = 4, 8, 2


class GatedActivation(nn.Module):
    def forward(self, x):
        x, y = x.chunk(2, dim=1)
        return torch.tanh(x) * torch.sigmoid(y)


class GatedMaskedConv2d(nn.Module):
    def __init__(self, mask_type, dim, kernel, residual=True, n_classes=N_CLASSES):
        super().__init__()
        assert kernel % 2 == 1, "Kernel size must be odd"
        self.mask_type, self.residual = mask_type, residual
        self.class_cond_embedding = nn.Embedding(n_classes, 2 * dim)
        self.vert_stack = nn.Conv2d(dim, dim * 2, (kernel // 2 + 1, kernel), 1, (kernel // 2, kernel // 2))
        self.vert_to_horiz = nn.Conv2d(2 * dim, 2 * dim, 1)
        self.horiz_stack = nn.Conv2d(dim, dim * 2, (1, kernel // 2 + 1), 1, (0, kernel // 2))
        self.horiz_resid = nn.Conv2d(dim, dim, 1)
        self.gate = GatedActivation()

    def make_causal(self):
        self.vert_stack.weight.data[:, :, -1].zero_()  # the centre row
        self.horiz_stack.weight.data[:, :, :, -1].zero_()  # the centre column

    def forward(self, x_v, x_h, h):
        if self.mask_type == "A":
            self.make_causal()
        h = self.class_cond_embedding(h)
        h_vert = self.vert_stack(x_v)
        h_vert = h_vert[:, :, :x_v.size(-1), :]
        out_v = self.gate(h_vert + h[:, :, None, None])
        h_horiz = self.horiz_stack(x_h)
        h_horiz = h_horiz[:, :, :, :x_h.size(-2)]
        v2h = self.vert_to_horiz(h_vert)
        out = self.gate(v2h + h_horiz + h[:, :, None, None])
        out_h = self.horiz_resid(out) + x_h if self.residual else self.horiz_resid(out)
        return out_v, out_h


class GatedPixelCNN(nn.Module):
    def __init__(self, input_dim=LEVELS, dim=16, n_layers=4):
        super().__init__()
        self.embedding = nn.Embedding(input_dim, dim)
        self.layers = nn.ModuleList()
        for i in range(n_layers):
            mask_type = "A" if i == 0 else "B"
            kernel = 7 if i == 0 else 3
            self.layers.append(GatedMaskedConv2d(mask_type, dim, kernel, residual=i != 0))
        self.output_conv = nn.Sequential(nn.Conv2d(dim, 64, 1), nn.ReLU(True), nn.Conv2d(64, input_dim, 1))

    def forward(self, x, label):
        x = self.embedding(x.view(-1)).view(x.shape + (-1,)).permute(0, 3, 1, 2)
        x_v, x_h = (x, x)
        for layer in self.layers:
            x_v, x_h = layer(x_v, x_h, label)
        return self.output_conv(x_h)

    @torch.no_grad()
    def generate(self, label, shape=(SIZE, SIZE), batch_size=4, generator=None):
        x = torch.zeros((batch_size, *shape), dtype=torch.int64)
        for i in range(shape[0]):
            for j in range(shape[1]):
                logits = self.forward(x, label)
                probs = F.softmax(logits[:, :, i, j], -1)
                x.data[:, i, j].copy_(probs.multinomial(1, generator=generator).squeeze().data)
        return x


def make_images(n, gen):
    """Class 0: vertical stripes; class 1: a diagonal ramp; quantised to 4 levels with noise."""
    labels = torch.arange(n) % N_CLASSES
    ii, jj = torch.meshgrid(torch.arange(SIZE), torch.arange(SIZE), indexing="ij")
    stripes = (jj % 4 < 2).float() * 3
    ramp = ((ii + jj).float() / (2 * SIZE - 2) * 3)
    base = torch.where(labels[:, None, None] == 0, stripes, ramp)
    noisy = base + 0.4 * torch.randn(n, SIZE, SIZE, generator=gen)
    return noisy.round().clamp(0, LEVELS - 1).long(), labels


gen = torch.Generator().manual_seed(4)
x_train, y_train = make_images(64, gen)
x_test, y_test = make_images(16, gen)
print("data", tuple(x_train.shape), x_train.dtype, torch.bincount(x_train.flatten(), minlength=LEVELS).tolist())
model = GatedPixelCNN()
print("params", sum(p.numel() for p in model.parameters()),
      tuple(model.layers[0].vert_stack.weight.shape), tuple(model.layers[1].horiz_stack.weight.shape))

# receptive field: d out[:, :, 4, 4] / d input embedding must vanish at and after (4, 4) in raster order
model.layers[0].make_causal()
emb = model.embedding(x_train[:1].view(-1)).view(1, SIZE, SIZE, -1).permute(0, 3, 1, 2).detach().requires_grad_()
xv, xh = emb, emb
for layer in model.layers:
    xv, xh = layer(xv, xh, y_train[:1])
model.output_conv(xh)[0, :, 4, 4].sum().backward()
dep = emb.grad.abs().sum(1)[0] > 0
future = torch.zeros(SIZE, SIZE, dtype=torch.bool)
future.view(-1)[4 * SIZE + 4:] = True
print("causal", not (dep & future).any().item(), "sees", int(dep.sum()), "pixels, left neighbour", dep[4, 3].item())

opt = torch.optim.Adam(model.parameters(), lr=3e-3)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, epochs=3, steps_per_epoch=4)
for epoch in range(3):
    total = 0.0
    for xb, yb in zip(x_train.split(16), y_train.split(16)):
        logits = model(xb, yb)
        loss = F.cross_entropy(logits, xb)
        opt.zero_grad()
        loss.backward()
        gn = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        total += loss.item()
    model.eval()
    with torch.no_grad():
        nll = F.cross_entropy(model(x_test, y_test), x_test)
    model.train()
    print(f"epoch {epoch} train {total / 4:.4f} test bpd {nll.item() / math.log(2):.4f} gn {gn:.4f}"
          f" lr {sched.get_last_lr()[0]:.5f}")
print("causal weights zero", model.layers[0].vert_stack.weight[:, :, -1].abs().sum().item(),
      model.layers[0].horiz_stack.weight[:, :, :, -1].abs().sum().item())

model.eval()
samples = model.generate(torch.tensor([0, 1, 0, 1]), batch_size=4, generator=torch.Generator().manual_seed(9))
print("samples", tuple(samples.shape), samples.dtype, samples[0, 0].tolist(), samples[1, 0].tolist())
with torch.no_grad():
    logp = -F.cross_entropy(model(samples, torch.tensor([0, 1, 0, 1])), samples, reduction="none").sum((1, 2))
    swapped = -F.cross_entropy(model(samples, torch.tensor([1, 0, 1, 0])), samples, reduction="none").sum((1, 2))
print("class conditional", [round(v, 3) for v in logp.tolist()], (logp > swapped).tolist())

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
m2 = GatedPixelCNN()
print("load", m2.load_state_dict(torch.load(buf)), len(m2.state_dict()))
with torch.no_grad():
    print("same logits", torch.equal(m2.eval()(x_test[:2], y_test[:2]), model(x_test[:2], y_test[:2])))
