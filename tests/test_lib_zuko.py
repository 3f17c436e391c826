"""zuko (conditional MAF, NSF and RealNVP flows trained by maximum likelihood, rsample gradients, a flow built from
lazy transforms by hand, an exact-trace CNF whose log-density integrates a Jacobian trace from batched
grad_outputs) under the drop-in runner, compared line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_zuko_flows_train_sample_and_cnf_match_torch():
    _, ours = lib_program_vs_torch("lib_zuko_flows.py", "torch", "zuko", timeout=600, rtol=1e-4)
    assert len(ours) == 11
    for name in ("MAF", "NSF", "RealNVP"):
        losses = [float(v) for v in ours[[line.split()[0] for line in ours].index(name)].split("[")[1][:-1].split(",")]
        assert len(losses) == 3 and losses[-1] < losses[0], (name, losses)
    assert ours[-1].startswith("cnf log_prob")
