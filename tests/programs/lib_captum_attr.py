"""captum attributions on a tiny classifier: IntegratedGradients, Saliency, InputXGradient, DeepLift,
GradientShap, NoiseTunnel, Occlusion, FeatureAblation, LayerConductance, LayerGradCam, NeuronConductance."""
import numpy
import torch
import torch.nn as nn
from captum.attr import (DeepLift, FeatureAblation, GradientShap, InputXGradient, IntegratedGradients,
                         LayerConductance, LayerGradCam, NeuronConductance, NoiseTunnel, Occlusion, Saliency)


def show(name, t):
    if isinstance(t, tuple):
        t = t[0]
    t = t.detach()
    print(name, tuple(t.shape), f"{t.sum().item():.5f} {t.abs().sum().item():.5f}")


torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 3))
x = torch.randn(4, 6)
base = torch.zeros(4, 6)
ig = IntegratedGradients(mlp)
attr, delta = ig.attribute(x, base, target=1, n_steps=20, return_convergence_delta=True)
show("ig", attr)
show("ig_delta", delta)
show("saliency", Saliency(mlp).attribute(x, target=2))
show("ixg", InputXGradient(mlp).attribute(x, target=0))
show("deeplift", DeepLift(mlp).attribute(x, base, target=1))
show("occlusion", Occlusion(mlp).attribute(x, sliding_window_shapes=(2,), target=1))
show("ablation", FeatureAblation(mlp).attribute(x, target=1))
show("layer_cond", LayerConductance(mlp, mlp[0]).attribute(x, target=1, n_steps=10))
show("neuron_cond", NeuronConductance(mlp, mlp[0]).attribute(x, neuron_selector=3, target=1, n_steps=10))
torch.manual_seed(1)
numpy.random.seed(1)
show("gshap", GradientShap(mlp).attribute(x, baselines=torch.randn(5, 6), target=1, n_samples=4))
torch.manual_seed(2)
show("nt", NoiseTunnel(Saliency(mlp)).attribute(x, nt_type="smoothgrad", nt_samples=3, target=1, stdevs=0.1))

cnn = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(3, 2))
img = torch.randn(2, 1, 6, 6)
show("gradcam", LayerGradCam(cnn, cnn[0]).attribute(img, target=1))
show("ig_img", IntegratedGradients(cnn).attribute(img, target=0, n_steps=8))
show("occl_img", Occlusion(cnn).attribute(img, sliding_window_shapes=(1, 2, 2), strides=(1, 2, 2), target=0))
