"""zennit (LRP attributions): a small seeded CNN with batch norm explained by the EpsilonPlusFlat,
EpsilonGammaBox, EpsilonAlpha2Beta1, ExcitationBackprop, GuidedBackprop and DeconvNet composites (with the
SequentialMergeBatchNorm canonizer, which folds the batch norm into the conv and restores it afterwards), a
NameMapComposite, the Gradient, SmoothGrad, IntegratedGradients and Occlusion attributors, and the relevance
conservation of the epsilon rule; zennit's heatmap helpers (imgify, interval_norm_bounds).

zennit's ``__init__`` imports torchvision for its ResNet canonizer only; torchvision is not installed next to this
torch, so a stub with the two block classes stands in for it (no ResNet is built here)."""
import sys
import types

import numpy as np
import torch

tv = types.ModuleType("torchvision")
tv.models = types.ModuleType("torchvision.models")
tv.models.resnet = types.ModuleType("torchvision.models.resnet")
tv.models.resnet.Bottleneck = type("Bottleneck", (torch.nn.Module,), {})
tv.models.resnet.BasicBlock = type("BasicBlock", (torch.nn.Module,), {})
sys.modules.update({"torchvision": tv, "torchvision.models": tv.models, "torchvision.models.resnet": tv.models.resnet})

from zennit.attribution import Gradient, IntegratedGradients, Occlusion, SmoothGrad  # noqa: E402
from zennit.canonizers import SequentialMergeBatchNorm  # noqa: E402
from zennit.composites import (DeconvNet, EpsilonAlpha2Beta1, EpsilonGammaBox, EpsilonPlusFlat,  # noqa: E402
                               ExcitationBackprop, GuidedBackprop, NameMapComposite)
from zennit.core import BasicHook  # noqa: E402
from zennit.image import imgify, interval_norm_bounds  # noqa: E402
from zennit.rules import Epsilon, Flat, Gamma, ZPlus  # noqa: E402


def r(x, n=4):
    return round(float(x), n)


def summary(name, rel):
    rel = rel.detach()
    print(name, tuple(rel.shape), r(rel.sum()), r(rel.abs().sum()), r(rel.flatten()[::97].sum()),
          [r(v) for v in rel.flatten(1).sum(1)])


torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
    torch.nn.AvgPool2d(2),
    torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.ReLU(),
    torch.nn.MaxPool2d(2),
    torch.nn.Flatten(),
    torch.nn.Linear(8 * 4 * 4, 16), torch.nn.ReLU(),
    torch.nn.Linear(16, 5),
)
# give the batch norm running statistics and make it act in eval mode
model.train()
with torch.no_grad():
    for _ in range(3):
        model(torch.randn(6, 3, 16, 16))
model.eval()
x = torch.randn(2, 3, 16, 16)
target = torch.eye(5)[[1, 3]]
print("logits", [[r(v) for v in row] for row in model(x)])

canon = [SequentialMergeBatchNorm()]
composites = [
    ("epsilon_plus_flat", EpsilonPlusFlat(canonizers=canon)),
    ("epsilon_gamma_box", EpsilonGammaBox(low=-3.0, high=3.0, canonizers=canon)),
    ("epsilon_alpha2_beta1", EpsilonAlpha2Beta1(canonizers=canon)),
    ("excitation_backprop", ExcitationBackprop(canonizers=canon)),
    ("guided_backprop", GuidedBackprop()),
    ("deconvnet", DeconvNet()),
]
bn_before = model[1].weight.detach().clone(), model[0].weight.detach().clone()
for name, composite in composites:
    with Gradient(model=model, composite=composite) as attributor:
        out, rel = attributor(x, target)
    summary(name, rel)
# the canonizer restored the batch norm and the conv weights
print("restored", bool(torch.equal(bn_before[0], model[1].weight)), bool(torch.equal(bn_before[1], model[0].weight)),
      len(model[0]._forward_hooks), len(model[0]._forward_pre_hooks))

# the epsilon rule (no bias) conserves relevance through a bias-free net
torch.manual_seed(1)
net = torch.nn.Sequential(torch.nn.Linear(10, 12, bias=False), torch.nn.ReLU(), torch.nn.Linear(12, 4, bias=False))
xi = torch.randn(3, 10, requires_grad=True)
composite = NameMapComposite([(["0", "2"], Epsilon(epsilon=1e-9))])
with composite.context(net) as modified:
    out = modified(xi)
    onehot = torch.zeros_like(out)
    onehot[:, 2] = 1.0
    (rel,) = torch.autograd.grad(out, xi, onehot * out)
print("conservation", [r(v) for v in rel.sum(1)], [r(v) for v in out[:, 2]])
print("hooks removed", len(net[0]._forward_hooks), xi.grad is None)

# other rules by name
composite = NameMapComposite([(["0"], Flat()), (["2"], ZPlus())])
with composite.context(net) as modified:
    out = modified(xi)
    (rel,) = torch.autograd.grad(out, xi, torch.ones_like(out))
summary("flat_zplus", rel)
composite = NameMapComposite([(["0"], Gamma(gamma=0.5)), (["2"], Epsilon())])
with composite.context(net) as modified:
    out = modified(xi)
    (rel,) = torch.autograd.grad(out, xi, torch.ones_like(out))
summary("gamma_epsilon", rel)
print("basic hook subclass", issubclass(Gamma, BasicHook))

# the other attributors
torch.manual_seed(2)
with SmoothGrad(model=model, noise_level=0.1, n_iter=4) as attributor:
    out, rel = attributor(x, target)
summary("smoothgrad", rel)
with IntegratedGradients(model=model, n_iter=6) as attributor:
    out, rel = attributor(x, target)
summary("integrated_gradients", rel)
with Occlusion(model=model, window=(8, 8), stride=(8, 8)) as attributor:
    out, rel = attributor(x, target)
summary("occlusion", rel)
with Gradient(model=model, composite=EpsilonPlusFlat(canonizers=canon)) as attributor:
    out, rel = attributor(x, lambda o: o * (o == o.max(1, keepdim=True).values))
summary("attr_fn", rel)

# heatmaps
heat = rel.detach().sum(1).numpy()
lo, hi = interval_norm_bounds(heat, symmetric=True)
print("bounds", lo.shape, [r(v) for v in hi.flatten()])
img = imgify(rel.detach().numpy(), symmetric=True, grid=True)
print("image", img.size, img.mode, round(float(np.asarray(img, dtype=np.float64).mean()), 1))
