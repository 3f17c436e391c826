"""pyro-ppl (SVI with a hand-written guide, AutoNormal and AutoDiagonalNormal guides under Trace_ELBO and
TraceMeanField_ELBO, Predictive, a conditioned trace's log joint, an enumerated Gaussian mixture under
TraceEnum_ELBO, a short NUTS chain) under the drop-in runner, compared line by line with the same program under
real torch; and a Gaussian process (pyro.contrib.gp), pyro's transform-built flows, more autoguides, RenyiELBO and
importance sampling (lib_pyro_gp_flows.py). The NUTS means agree to ~5e-4 (float32 rounding along 40 adapted
trajectories), the rest to ~1e-6.
"""
from conftest import lib_program_vs_torch


def test_pyro_svi_enumeration_and_nuts_match_torch():
    _, ours = lib_program_vs_torch("lib_pyro_svi.py", "torch", "pyro", timeout=900, rtol=2e-3)
    assert len(ours) == 10
    assert [line.split()[0] for line in ours] == ["manual"] * 2 + ["autonormal"] * 2 + ["autodiag"] * 2 + [
        "predictive", "log_joint", "mixture", "nuts"]


def test_pyro_gp_flows_guides_and_importance_match_torch():
    _, ours = lib_program_vs_torch("lib_pyro_gp_flows.py", "torch", "pyro", timeout=900, rtol=1e-4)
    assert len(ours) == 13
    flow = [float(line.split()[-1]) for line in ours if line.startswith("flow step")]
    assert len(flow) == 4 and flow[-1] < flow[0], flow
