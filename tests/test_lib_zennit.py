"""zennit 0.5.1 (layer-wise relevance propagation) under the drop-in runner, compared line by line with real torch:
the EpsilonPlusFlat, EpsilonGammaBox, EpsilonAlpha2Beta1, ExcitationBackprop, GuidedBackprop and DeconvNet
composites on a small CNN with batch norm (folded into the conv by SequentialMergeBatchNorm and restored after),
NameMapComposite with the Epsilon/Flat/ZPlus/Gamma rules and the epsilon rule's relevance conservation, the
Gradient, SmoothGrad, IntegratedGradients and Occlusion attributors, and the heatmap helpers.

zennit's rules run in backward hooks registered on ``grad_fn`` nodes (``grad_fn.register_hook``) of an identity
autograd Function applied in forward pre-hooks, and modify parameters in place inside ``ParamMod`` contexts; all of it
ran unchanged. Found nothing to fix: the Gamma rule's relevance, which divides by near-zero sums, agrees to ~3e-6
relative (float32 matmul rounding amplified), the rest at 4 decimals. zennit imports torchvision (for its ResNet
canonizer) which is not installed beside this torch; the program stubs the two classes it imports."""
from conftest import lib_program_vs_torch


def test_zennit_lrp_composites_and_attributors_like_torch():
    t, ours = lib_program_vs_torch("lib_zennit.py", "zennit", "PIL", timeout=600, rtol=1e-4)
    assert len(ours) == 19, ours
    assert ours[7] == "restored True True 0 0", ours[7]
    # the epsilon rule conserves relevance: the input relevances sum to the explained logit
    assert ours[8] == t[8] and ours[8] == "conservation [-0.3844, 0.2887, 0.0074] [-0.3844, 0.2887, 0.0074]", ours[8]
    assert ours[9] == "hooks removed 0 True", ours[9]
    assert ours[15].startswith("occlusion (2, 3, 16, 16)"), ours[15]
