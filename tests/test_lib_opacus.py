"""Opacus (differentially-private SGD: per-sample gradients from module hooks, torch.func and ExpandedWeights,
DPDataLoader's Poisson sampling, DPOptimizer clipping and Gaussian noise, RDP/GDP/PRV accounting,
make_private_with_epsilon, ModuleValidator on a BatchNorm model, DPLSTM) under the drop-in runner, compared
line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def _values(lines, key):
    (line,) = [ln for ln in lines if ln.startswith(key + " ")]
    rest = line[len(key):]
    return [float(v) for v in rest.strip(" []").split(",")]


def test_opacus_dp_training_matches_torch():
    _, ours = lib_program_vs_torch("lib_opacus_dp.py", "torch", "opacus", timeout=600, rtol=1e-4)
    assert len(ours) == 57, len(ours)
    # per-sample gradients have a leading batch dimension, the Poisson batch's size
    assert "mlp grad_sample shapes [(10, 32, 16), (10, 32), (10, 4, 32), (10, 4)]" in ours
    assert "mlp-ew type GradSampleModuleExpandedWeights DPOptimizer DPDataLoader" in ours
    # the three grad samplers compute the same per-sample gradients and (noise-free) steps
    for key in ("per-sample norms", "losses", "weights"):
        assert _values(ours, f"mlp {key}") == _values(ours, f"mlp-functorch {key}") == _values(ours, f"mlp-ew {key}")
        assert _values(ours, f"cnn {key}") == _values(ours, f"cnn-functorch {key}")
    for line in ("validate batchnorm 1 ShouldReplaceModuleError", "strict validate UnsupportedModuleError",
                 "fixed norm GroupNorm 8 True", "gsm hooks sum matches grad True",
                 "gsm functorch sum matches grad True"):
        assert any(ln.startswith(line) for ln in ours), line
    eps = {ln.split()[1]: float(ln.split()[-1]) for ln in ours if ln.startswith("accountant")}
    assert set(eps) == {"rdp", "gdp", "prv"} and all(0 < e < 10 for e in eps.values()), eps
    assert 0 < float([ln for ln in ours if ln.startswith("with_epsilon epsilon")][0].split()[-1]) <= 3.0
