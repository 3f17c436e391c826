"""pytorch_optimizer 4.1.0 under the drop-in runner, compared line by line with real torch: ~100 optimizers by
name (five steps each), create_optimizer with Lookahead/OrthoGrad/compile, a state_dict round trip, Ranger21,
AliG, AdaHessian and SophiaH (Hessians through create_graph), Muon and its variants, SpectralSphere, Adam-mini, the SAM family with closures
(SAM, GSAM, FriendlySAM, LookSAM, WSAM, BSAM), ScheduleFree's train/eval, GaLore with a rank-2 group, its lr
schedulers and its losses."""
from conftest import lib_program_vs_torch


def test_pytorch_optimizer_optimizers_schedulers_losses_like_torch():
    _, ours = lib_program_vs_torch("lib_pytorch_optimizer.py", "pytorch_optimizer", timeout=900, rtol=1e-3)
    assert len(ours) == 151, ours
    assert "adam 1.0178 [-2.0637, 0.6579, 0.3986, 0.2093]" in ours
    assert "create groups Lookahead [(2, 0.01), (2, 0.0)]" in ours
    assert "gsam 1.0645 [-1.7691, 0.7127, 0.5911, 0.2535] 0.01" in ours
    assert ("cosine warmup restarts [0.001, 0.1, 0.07525, 0.02575, 0.001, 0.05, 0.03775, 0.01325, 0.001, 0.025]"
            in ours)
    assert "loss ldam 11.0126 [15.1456, None, None]" in ours
    assert "ranger resumed True [-1.7718, 0.7231, 0.5911, 0.2535] ['exp_avg', 'exp_avg_sq', 'slow_buffer']" in ours
    assert "spectralsphere 1.051 [-1.675, 0.722, 0.379, 0.253]" in ours
