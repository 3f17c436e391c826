"""captum attributions under the drop-in runner, compared with real torch.

tests/programs/lib_captum_attr.py runs IntegratedGradients (with its convergence delta), Saliency,
InputXGradient, DeepLift, Occlusion, FeatureAblation, LayerConductance, NeuronConductance, GradientShap,
NoiseTunnel, LayerGradCam on tiny MLP/CNN models. It needed ``torch.nn.parallel.scatter_gather`` (imported
by captum at import time), ``torch.Future`` (an isinstance check) and ``autograd.grad`` to a non-leaf
input leaving the graph below that input alive (NeuronConductance differentiates twice through it).
"""
from conftest import lib_program_vs_torch


def test_captum_attributions_match_torch():
    _, ours = lib_program_vs_torch("lib_captum_attr.py", "torch", "captum", timeout=600, rtol=1e-4)
    names = [line.split()[0] for line in ours]
    assert names == ["ig", "ig_delta", "saliency", "ixg", "deeplift", "occlusion", "ablation", "layer_cond",
                     "neuron_cond", "gshap", "nt", "gradcam", "ig_img", "occl_img"]


def test_captum_lrp_sampling_and_metrics_match_torch():
    # LRP's hooks set ``grad.replace_out`` in one tensor hook and read it in the next (one gradient object through
    # a tensor's hooks); sensitivity_max perturbs ``torch.FloatTensor(x.size())`` (a torch.Size is a shape)
    _, ours = lib_program_vs_torch("lib_captum_lrp_metrics.py", "torch", "captum", timeout=600, rtol=1e-4)
    lines = dict(line.split(" ", 1) for line in ours)
    assert lines["lrp"].startswith("(2, 1, 6, 6)") and "sens" in lines
