"""pykan 0.2.8 (Kolmogorov-Arnold networks: B-spline layers, grid update, Adam/LBFGS fit with sparsity
regularization, pruning, grid refinement, symbolic regression, checkpoints) under the drop-in runner, compared
line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_pykan_fit_prune_refine_symbolic_like_torch():
    _, ours = lib_program_vs_torch("lib_pykan.py", "torch", "kan", "sympy", timeout=900, rtol=1e-3)
    lines = [text for text in ours if not text.startswith(("saving model", "checkpoint directory"))]
    assert len(lines) == 19, lines
    line = {text.split(" ")[0] + " " + text.split(" ")[1]: text for text in lines}
    assert lines[0] == "dataset (100, 2) (50, 1) -7.9071 184.1171", lines[0]
    assert line["init params"].startswith("init params 348 "), line["init params"]
    assert line["init grid"] == "init grid (2, 12) [-2.2, -1.8, -1.4, -1.0]"
    assert line["lbfgs 0.08"].endswith(" 2 True"), line
    assert line["pruned width"].startswith("pruned width [[2, 0], [3, 0], [1, 0]]"), line["pruned width"]
    assert line["refined grid"].startswith("refined grid 17 "), line["refined grid"]
    assert line["symbolic funs"].startswith("symbolic funs [[['"), line["symbolic funs"]
    assert line["symbolic Add"] == "symbolic Add ['x_1', 'x_2']"
    assert lines[-2].split(" ", 1)[1].replace("[[2, 0], [3, 0], [1, 0]] ", "") == \
        line["symbolic out"].split("out ")[1], (lines[-2], line["symbolic out"])
    assert lines[-1] == "files ['ckpt_cache_data', 'ckpt_config.yml', 'ckpt_state']"
