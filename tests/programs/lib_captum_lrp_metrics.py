"""captum beyond tests/programs/lib_captum_attr.py: LRP (tensor hooks that pass attributes on the gradient object
from one hook to the next), guided backprop/deconvolution, layer and neuron methods, Shapley/KernelShap/Lime
sampling, and the captum.metrics infidelity and sensitivity_max (which perturbs ``torch.FloatTensor(x.size())``)."""
import numpy as np
import torch
import torch.nn as nn
from captum.attr import (LRP, Deconvolution, DeepLiftShap, FeaturePermutation, GuidedBackprop, GuidedGradCam,
                         IntegratedGradients, InternalInfluence, KernelShap, LayerActivation, LayerAttribution,
                         LayerDeepLift, LayerGradCam, LayerGradientXActivation, LayerIntegratedGradients, Lime,
                         NeuronConductance, NeuronGradient, Saliency, ShapleyValueSampling)
from captum.metrics import infidelity, sensitivity_max
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1); self.relu = nn.ReLU(); self.pool = nn.AdaptiveAvgPool2d(2)
        self.fc = nn.Linear(16, 3)
    def forward(self, x):
        return self.fc(self.pool(self.relu(self.conv(x))).flatten(1))


net = Net().eval()
x = torch.from_numpy(np.random.default_rng(0).standard_normal((2, 1, 6, 6)).astype(np.float32))
base = torch.zeros_like(x)


def p(name, a):
    if isinstance(a, tuple): a = a[0]
    print(name, tuple(a.shape), f"{a.sum().item():.5f} {a.abs().sum().item():.5f}")


p("guided", GuidedBackprop(net).attribute(x, target=1))
p("deconv", Deconvolution(net).attribute(x, target=1))
p("ggc", GuidedGradCam(net, net.conv).attribute(x, target=1))
lgc = LayerGradCam(net, net.conv).attribute(x, target=2); p("lgc", lgc)
p("interp", LayerAttribution.interpolate(lgc, (6, 6), interpolate_mode="bilinear"))
p("lig", LayerIntegratedGradients(net, net.conv).attribute(x, baselines=base, target=0, n_steps=10))
p("lact", LayerActivation(net, net.pool).attribute(x))
p("lgxa", LayerGradientXActivation(net, net.conv).attribute(x, target=0))
p("ncond", NeuronConductance(net, net.fc).attribute(x, neuron_selector=1, target=1, n_steps=8))
p("ngrad", NeuronGradient(net, net.conv).attribute(x, neuron_selector=(0, 2, 2)))
p("infl", InternalInfluence(net, net.conv).attribute(x, target=0, n_steps=8))
p("ldl", LayerDeepLift(net, net.conv).attribute(x, baselines=base, target=0))
fm = torch.arange(36).reshape(1, 1, 6, 6) // 9
p("svs", ShapleyValueSampling(net).attribute(x, target=0, n_samples=3, feature_mask=fm))
torch.manual_seed(1)
p("kshap", KernelShap(net).attribute(x, target=0, n_samples=20, feature_mask=fm))
torch.manual_seed(1)
p("lime", Lime(net).attribute(x, target=0, n_samples=20, feature_mask=fm))
torch.manual_seed(1)
p("dls", DeepLiftShap(net).attribute(x, baselines=torch.zeros(3, 1, 6, 6), target=0))
p("lrp", LRP(net).attribute(x, target=0))
torch.manual_seed(2)
p("fperm", FeaturePermutation(net).attribute(x, target=0, feature_mask=fm))
ig = IntegratedGradients(net)
attr, delta = ig.attribute(x, target=0, n_steps=16, return_convergence_delta=True, method="riemann_trapezoid")
p("ig_trap", attr)
print("delta", [f"{d:.5f}" for d in delta.tolist()])


def perturb(inputs):
    noise = torch.tensor(np.random.default_rng(3).standard_normal(inputs.shape).astype(np.float32)) * 0.01
    return noise, inputs - noise


print("infid", [f"{v:.6f}" for v in infidelity(net, perturb, x, attr, target=0).tolist()])
torch.manual_seed(4)
print("sens", [f"{v:.4f}" for v in sensitivity_max(Saliency(net).attribute, x, target=0, n_perturb_samples=3).tolist()])
