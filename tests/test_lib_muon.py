"""muon-optimizer 0.1.0 (Keller Jordan's Muon) under the drop-in runner, compared line by line with real torch:
the bfloat16 Newton-Schulz orthogonalisation, SingleDeviceMuon, SingleDeviceMuonWithAuxAdam's Muon/Adam
parameter-group split, and the distributed Muon and MuonWithAuxAdam in a one-process gloo group (all_gather of
the updated matrices)."""
from conftest import lib_program_vs_torch


def test_muon_like_torch():
    _, ours = lib_program_vs_torch("lib_muon.py", "muon", timeout=600, rtol=1e-3)
    assert len(ours) == 6, ours
    assert ours[0] == "newton-schulz torch.bfloat16 (6, 10) 0.69 1.1", ours[0]
    assert ours[1] == "newton-schulz tall (10, 6)", ours[1]
    assert ours[3].endswith("['exp_avg', 'exp_avg_sq', 'step'] ['momentum_buffer']"), ours[3]
