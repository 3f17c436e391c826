"""pytorch-ranger (Ranger, RangerQH, RangerVA: RAdam/QHAdam + Lookahead through torch's deprecated
``add_(scalar, tensor)``-style overloads, ``p.data`` writes and ``torch.max(out=)``) stepping a small model past
the lookahead sync, then a state_dict round trip, under the drop-in runner against real torch."""
from conftest import lib_program_vs_torch


def test_ranger_optimizers_step_and_reload_like_torch():
    _, ours = lib_program_vs_torch("lib_pytorch_ranger.py", "torch", "pytorch_ranger", timeout=600, rtol=1e-4)
    assert len(ours) == 32
    losses = [float(v) for v in ours[0].split()[1:]]
    assert len(losses) == 8 and losses[-1] < losses[0]
    assert ours[2] == "Ranger state ['exp_avg', 'exp_avg_sq', 'slow_buffer', 'step'] 0"
    assert "max_exp_avg_sq" in ours[22]  # RangerVA's amsgrad buffer
