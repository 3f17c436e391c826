"""Class-activation and gradient attribution methods written by hand as jacobgil/pytorch-grad-cam and
utkuozbulak/pytorch-cnn-visualizations do (own code; a small CNN trained for a few steps on synthetic images):
``ActivationsAndGradients`` capturing a target layer's output by ``register_forward_hook`` and its gradient by a
``register_hook`` on that output (and, separately, by ``register_full_backward_hook``), hook handles removed;
Grad-CAM (channel weights by the spatial mean of gradients), Grad-CAM++ (second/third-order weights), Score-CAM
(masked forward passes under ``torch.no_grad`` with ``F.interpolate(mode='bilinear')``), ``F.relu`` and min-max
normalisation; vanilla saliency (``input.grad.abs().amax(1)``), SmoothGrad, Integrated Gradients by a Riemann sum
with ``torch.autograd.grad`` and its completeness check; guided backpropagation by ``register_full_backward_hook``
on every ``ReLU`` returning clamped ``grad_input``; ``register_forward_pre_hook`` to record input shapes; the
deletion metric; and an ``eval()``/``state_dict`` round trip of the model."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SmallCNN(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


def make_images(n):
    """Class k has a bright square in quadrant k (of 3) on noise."""
    imgs = 0.3 * torch.randn(n, 3, 16, 16)
    labels = torch.arange(n) % 3
    for i, k in enumerate(labels.tolist()):
        r, c = (k // 2) * 8, (k % 2) * 8
        imgs[i, :, r + 2:r + 6, c + 2:c + 6] += 1.5
    return imgs, labels


x_train, y_train = make_images(48)
model = SmallCNN()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(4):
    for xb, yb in zip(x_train.split(16), y_train.split(16)):
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
model.eval()
x_test, y_test = make_images(6)
with torch.no_grad():
    print("test acc", f"{(model(x_test).argmax(1) == y_test).float().mean():.4f}")


class ActivationsAndGradients:
    def __init__(self, model, target_layer):
        self.model, self.activations, self.gradients = model, [], []
        self.handles = [target_layer.register_forward_hook(self.save_activation)]

    def save_activation(self, module, inp, output):
        self.activations.append(output.cpu().detach())
        if not hasattr(output, "requires_grad") or not output.requires_grad:
            return  # a forward pass under no_grad: nothing to hook

        def _store_grad(grad):
            self.gradients = [grad.cpu().detach()] + self.gradients

        output.register_hook(_store_grad)

    def __call__(self, x):
        self.activations, self.gradients = [], []
        return self.model(x)

    def release(self):
        for h in self.handles:
            h.remove()


def scale_cam(cam, size):
    cam = F.interpolate(cam.unsqueeze(1), size=size, mode="bilinear", align_corners=False).squeeze(1)
    lo = cam.flatten(1).min(1)[0][:, None, None]
    hi = cam.flatten(1).max(1)[0][:, None, None]
    return (cam - lo) / (hi - lo + 1e-7)


target_layer = model.features[5]  # the last ReLU before the final conv
aag = ActivationsAndGradients(model, target_layer)
out = aag(x_test)
score = out.gather(1, y_test[:, None]).sum()
model.zero_grad()
score.backward(retain_graph=True)
acts, grads = aag.activations[0], aag.gradients[0]
print("captured", tuple(acts.shape), tuple(grads.shape), acts.requires_grad)
weights = grads.mean(dim=(2, 3), keepdim=True)
gradcam = scale_cam(F.relu((weights * acts).sum(1)), (16, 16))
print("gradcam", tuple(gradcam.shape), [round(v, 4) for v in gradcam[0, ::4, ::4].flatten()[:6].tolist()])


def quadrant_hit(cam, labels):
    hits = []
    for c, k in zip(cam, labels.tolist()):
        r, cc = (k // 2) * 8, (k % 2) * 8
        hits.append(c[r:r + 8, cc:cc + 8].mean().item() > c.mean().item())
    return hits


print("gradcam in target quadrant", quadrant_hit(gradcam, y_test))

# Grad-CAM++
g2, g3 = grads.pow(2), grads.pow(3)
sum_a = acts.sum(dim=(2, 3), keepdim=True)
aij = g2 / (2 * g2 + sum_a * g3 + 1e-7)
aij = torch.where(grads != 0, aij, torch.zeros_like(aij))
w_pp = (aij * F.relu(grads)).sum(dim=(2, 3), keepdim=True)
campp = scale_cam((w_pp * acts).sum(1), (16, 16))
print("gradcam++", [round(v, 4) for v in campp[1, ::5, ::5].flatten()[:6].tolist()])

# Score-CAM
with torch.no_grad():
    base = F.softmax(model(torch.zeros_like(x_test[:1])), 1)
    up = F.interpolate(acts[:1], size=(16, 16), mode="bilinear", align_corners=False)[0]
    maxs, mins = up.flatten(1).max(1)[0], up.flatten(1).min(1)[0]
    norm = (up - mins[:, None, None]) / (maxs - mins + 1e-7)[:, None, None]
    masked = x_test[:1] * norm[:, None]
    probs = F.softmax(model(masked), 1)[:, y_test[0]] - base[0, y_test[0]]
    scorecam = F.relu((F.softmax(probs, 0)[:, None, None] * acts[0]).sum(0))
print("scorecam", tuple(masked.shape), f"{scorecam.sum():.4f}")
aag.release()
print("hooks released", len(target_layer._forward_hooks))

# full backward hook on the same layer
captured = {}


def record_grad(module, grad_input, grad_output):
    captured["gout"] = grad_output[0].detach()


def record_shape(module, args):
    captured["in_shape"] = tuple(args[0].shape)


h = target_layer.register_full_backward_hook(record_grad)
pre = model.features[4].register_forward_pre_hook(record_shape)
out = model(x_test)
model.zero_grad()
out.gather(1, y_test[:, None]).sum().backward()
h.remove()
pre.remove()
print("full backward hook", torch.allclose(captured["gout"], grads, atol=1e-6), captured["in_shape"])

# vanilla saliency and SmoothGrad
inp = x_test.clone().requires_grad_()
model(inp).gather(1, y_test[:, None]).sum().backward()
saliency = inp.grad.abs().amax(1)
print("saliency", tuple(saliency.shape), f"{saliency.sum():.4f}", quadrant_hit(saliency, y_test))
g = torch.Generator().manual_seed(5)
smooth = torch.zeros_like(x_test)
for _ in range(8):
    noisy = (x_test + 0.15 * torch.randn(x_test.shape, generator=g)).requires_grad_()
    smooth += torch.autograd.grad(model(noisy).gather(1, y_test[:, None]).sum(), noisy)[0]
print("smoothgrad", f"{(smooth / 8).abs().sum():.4f}")

# Integrated gradients
baseline = torch.zeros_like(x_test[:2])
steps = 16
alphas = torch.linspace(0, 1, steps + 1)[1:].view(-1, 1, 1, 1, 1)
path = (baseline + alphas * (x_test[:2] - baseline)).reshape(-1, 3, 16, 16).requires_grad_()
logits = model(path).view(steps, 2, -1)
target = logits[..., :].gather(2, y_test[:2].view(1, 2, 1).expand(steps, 2, 1)).sum()
gr = torch.autograd.grad(target, path)[0].view(steps, 2, 3, 16, 16)
ig = (x_test[:2] - baseline) * gr.mean(0)
with torch.no_grad():
    diff = model(x_test[:2]).gather(1, y_test[:2, None]) - model(baseline).gather(1, y_test[:2, None])
print("integrated gradients", [round(v, 3) for v in ig.sum(dim=(1, 2, 3)).tolist()],
      [round(v, 3) for v in diff.squeeze(1).tolist()])

# guided backprop
handles = []
for m in model.modules():
    if isinstance(m, nn.ReLU):
        handles.append(m.register_full_backward_hook(lambda mod, gin, gout: (torch.clamp(gin[0], min=0.0),)))
inp = x_test[:3].clone().requires_grad_()
model(inp).gather(1, y_test[:3, None]).sum().backward()
guided = inp.grad
for hh in handles:
    hh.remove()
print("guided backprop", len(handles), f"{guided.clamp(min=0).sum():.4f}", f"{guided.abs().sum():.4f}")
ggc = guided * gradcam[:3, None]
print("guided gradcam", tuple(ggc.shape), f"{ggc.abs().max():.4f}")

# deletion metric: remove most-salient pixels first
with torch.no_grad():
    order = gradcam[0].flatten().argsort(descending=True)
    img = x_test[:1].clone()
    curve = []
    for k in range(0, 256, 64):
        flat = img.view(1, 3, -1)
        flat[..., order[k:k + 64]] = 0
        curve.append(F.softmax(model(img), 1)[0, y_test[0]].item())
print("deletion", [round(v, 4) for v in curve])

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
m2 = SmallCNN()
print("load", m2.load_state_dict(torch.load(buf)), m2.features[1].num_batches_tracked.item())
with torch.no_grad():
    print("same eval", torch.equal(m2.eval()(x_test), model(x_test)), model.training, m2.training)
