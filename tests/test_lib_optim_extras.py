"""prodigyopt 1.1.2, dadaptation 3.2, came-pytorch 0.1.3, adan-pytorch 0.1.0, torch-lr-finder 0.2.2 and
pytorch-warmup 0.2.0 under the drop-in runner, compared line by line with real torch: Prodigy's and
D-Adaptation's d estimates and parameters after a few steps, CAME and Adan (with restarts),
LRFinder.range_test (exp and linear, validation loader, accumulation, reset, plot's suggestion) and the warmup
schedules dampening a cosine schedule."""
from conftest import lib_program_vs_torch


def test_prodigy_dadaptation_lr_finder_warmup_like_torch():
    _, ours = lib_program_vs_torch("lib_optim_extras.py", "prodigyopt", "dadaptation", "came_pytorch",
                                   "adan_pytorch", "torch_lr_finder", "pytorch_warmup", "matplotlib", timeout=600,
                                   rtol=1e-4)
    assert len(ours) == 33, ours
    assert "prodigy state ['exp_avg', 'exp_avg_sq', 'p0', 's', 'step'] 1.882e-05 8" in ours
    assert "dadapt DAdaptAdam [] 11.8655 [-0.3967, -0.3473, -0.4958, -0.1514] d 0.0023433" in ours
    assert "lrfinder reset True 0.0001" in ours
    assert "Adan restart 8.9119 [0.7534, -0.215, 0.1627, -0.0499]" in ours
    assert "lrfinder suggestion 0.000264 1" in ours
    assert "lrfinder linear lrs [0.001, 0.1008, 0.2006, 0.3004, 0.4002, 0.5]" in ours
