"""Warnings torch gives reach the user as torch's do: the same category and message, attributed to the same
line (the caller's line where torch's points at it; a library-internal frame where torch's is inside torch).

Found running tutorial-style scripts: warnings from functions behind an autocast policy named a torchlike
frame (``F.kl_div``'s reduction warning, ``F.mse_loss``'s broadcast one), and deprecations torch gives were
missing (``F.upsample*``, ``torch.range``, ``x.T`` on other than 2-D)."""
import os
import subprocess
import sys
import warnings

import pytest

import torchlike
from conftest import torch

CASES = [
    lambda m: m.nn.functional.kl_div(m.zeros(2, 3), m.zeros(2, 3)),
    lambda m: m.nn.functional.mse_loss(m.zeros(4, 3), m.zeros(1, 3)),
    lambda m: m.nn.functional.l1_loss(m.zeros(4, 3), m.zeros(3)),
    lambda m: m.nn.functional.smooth_l1_loss(m.zeros(4, 3), m.zeros(3)),
    lambda m: m.nn.functional.softmax(m.zeros(4, 3)),
    lambda m: m.nn.functional.upsample(m.zeros(1, 1, 2, 2), scale_factor=2),
    lambda m: m.nn.functional.upsample_nearest(m.zeros(1, 1, 2, 2), scale_factor=2),
    lambda m: m.nn.functional.upsample_bilinear(m.zeros(1, 1, 2, 2), scale_factor=2),
    lambda m: m.range(0, 3),
    lambda m: (m.ones(2, requires_grad=True) * 2).grad,
    # C++ warnings: torch's text ends with "(Triggered internally at <source line>.)"
    lambda m: m.tensor([5.0]).std(),
    lambda m: m.var_mean(m.tensor([5.0])),
    lambda m: m.std_mean(m.tensor([5.0]), dim=0),
    lambda m: m.zeros(3, 2)[m.tensor([1, 0, 1], dtype=m.uint8)],
    lambda m: m.zeros(4).resize(2, 2),
    lambda m: m.zeros(9).resize_as(m.zeros(3, 3)),
    lambda m: m.testing.assert_allclose(m.zeros(2), m.zeros(2)),
    lambda m: m.get_autocast_cpu_dtype(),
    lambda m: m.is_autocast_cpu_enabled(),
    lambda m: m.set_autocast_gpu_dtype(m.float16),
    lambda m: m.get_autocast_xla_dtype(),
    lambda m: m.autocast("cpu", dtype=m.float32),
    lambda m: m.autocast("cuda", dtype=m.bfloat16),
]


def _record(fn, m):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn(m)
    here = os.path.abspath(__file__)
    return [(x.category.__name__, str(x.message),
             x.lineno if os.path.abspath(x.filename) == here else "inside the library") for x in w]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_warning_text_category_and_line_match_torch(i):
    theirs = _record(CASES[i], torch)
    assert theirs, "torch gave no warning: not a warning case"
    assert _record(CASES[i], torchlike) == theirs


ONCE = ["t.cholesky(t.eye(3))", "t.qr(t.eye(3))", "t.cross(t.eye(3), t.eye(3))", "t.meshgrid(t.zeros(2), t.zeros(3))",
        "t.stft(t.zeros(64), 16, return_complex=True)", "t.lu(t.eye(3))", "t.chain_matmul(t.eye(2), t.eye(2))",
        "t.set_default_tensor_type(t.FloatTensor)", "t.triangular_solve(t.eye(2), t.eye(2))",
        "t.lu_solve(t.eye(2), *t.linalg.lu_factor(t.eye(2)))",
        "t.istft(t.stft(t.zeros(64), 16, return_complex=True, window=t.hann_window(16)), 16)",
        "t.where(t.tensor([1, 0], dtype=t.uint8), t.ones(2), 0.)",
        "t.zeros(3).scatter_(0, t.tensor([0, 1, 1]), t.ones(3), reduce='add')"]


def _fresh_interpreter_warnings(module, body):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    src = (f"import warnings; warnings.simplefilter('always'); import {module} as t\n"
           "with warnings.catch_warnings(record=True) as w:\n"
           "    warnings.simplefilter('always')\n"
           f"    {body}\n"
           "print(repr([(x.category.__name__, str(x.message)) for x in w]))\n")
    return subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, env=env, check=True).stdout


def test_cpp_deprecations_warn_once_with_torchs_text():
    """TORCH_WARN_ONCE deprecations (cholesky, qr, cross without dim, meshgrid without indexing, stft/istft
    without window, lu, chain_matmul, set_default_tensor_type, where with a uint8 condition): torch's full text
    and source note, once."""
    body = "; ".join(ONCE + ONCE)
    theirs = _fresh_interpreter_warnings("torch", body)
    assert theirs.count("Warning'") == len(ONCE)
    assert _fresh_interpreter_warnings("torchlike", body) == theirs


def test_transpose_T_deprecations_warn_once_like_torch():
    """torch's TORCH_WARN_ONCE: the 0-D and the not-2-D message, each once per process. The oracle is run in a
    fresh interpreter (this one may have warned already)."""
    src = ("import warnings; warnings.simplefilter('always'); import {m} as t\n"
           "with warnings.catch_warnings(record=True) as w:\n"
           "    warnings.simplefilter('always')\n"
           "    t.zeros(3).T; t.zeros(2, 3, 4).T; t.tensor(1.).T; t.tensor(2.).T; t.zeros(2, 3).T\n"
           "print([(x.category.__name__, str(x.message), x.lineno) for x in w])\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = [subprocess.run([sys.executable, "-c", src.format(m=m)], capture_output=True, text=True, env=env,
                          check=True).stdout for m in ("torch", "torchlike")]
    assert out[0].count("Warning") == 2
    assert out[1] == out[0]


@pytest.mark.parametrize("body", [
    "t.sparse_coo_tensor(t.tensor([[0]]), t.ones(1), (3,)); t.sparse_coo_tensor(t.tensor([[0]]), t.ones(1))",
    "t.sparse_coo_tensor(t.tensor([[0]]), t.ones(1), (3,), check_invariants=False); t.eye(2).to_sparse_csr(); "
    "t.sparse_csr_tensor(t.tensor([0, 1]), t.tensor([0]), t.ones(1), (1, 1))",
    "t.sparse.check_sparse_tensor_invariants.disable(); "
    "t.sparse_csc_tensor(t.tensor([0, 1]), t.tensor([0]), t.ones(1), (1, 1)); t.eye(2).to_sparse_bsr((1, 1))",
])
def test_sparse_factories_warn_once_like_torch(body):
    """torch's once-per-process notes: invariant checks left implicit (a factory without check_invariants, no
    opt-in/out), and the compressed layouts' beta state (named after the first one made)."""
    assert _fresh_interpreter_warnings("torchlike", body) == _fresh_interpreter_warnings("torch", body)


@pytest.mark.parametrize("body", [
    "t.zeros(3).scatter(0, t.tensor([0, 1, 1]), 2., reduce='add'); "
    "t.scatter(t.zeros(3), 0, t.tensor([0, 1]), t.ones(2), reduce='multiply'); "
    "t.zeros(3).scatter_(0, t.tensor([0, 1]), t.ones(2), reduce='add')",
    "t.zeros(3).scatter(0, t.tensor([0, 1, 1]), t.ones(3)); t.zeros(3).scatter(0, t.tensor([0]), 1., reduce='add')",
])
def test_scatter_reduce_argument_with_tensor_src_warns_once_like_torch(body):
    """torch's once-per-process deprecation of scatter's ``reduce=`` with a Tensor src (torchmetrics' and
    torcheval's per-class counts use it); a scalar value with ``reduce`` and a plain scatter give none."""
    assert _fresh_interpreter_warnings("torchlike", body) == _fresh_interpreter_warnings("torch", body)


_SCRIPTED_SPARSE = """import warnings
import {module} as torch


def counts(t: torch.Tensor, p: torch.Tensor):
    return torch.sparse_coo_tensor(torch.vstack((t, p)), torch.ones_like(t), [2, 2]).to_dense()


class Counts(torch.nn.Module):
    def forward(self, t):
        return torch.sparse_coo_tensor(t.unsqueeze(0), torch.ones_like(t), [3]).to_dense()


with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    scripted, module = torch.jit.script(counts), torch.jit.script(Counts())
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    print(scripted(torch.tensor([0, 1]), torch.tensor([1, 1])).tolist(), module(torch.tensor([0, 2])).tolist())
    print("scripted", [str(x.message)[:40] for x in w])
    torch.sparse_coo_tensor(torch.tensor([[0]]), torch.ones(1), (2,))
    print("eager", [str(x.message)[:40] for x in w])
"""


def test_sparse_invariant_note_silent_inside_jit_script_like_torch(tmp_path):
    """Inside a torch.jit.script function (or a scripted module's forward) TorchScript calls aten's sparse
    factory directly, so the Python bindings' invariant note does not fire there (torcheval's confusion
    matrices build sparse tensors in scripted code); the next eager call still gives it."""
    out = []
    for module in ("torch", "torchlike"):
        path = tmp_path / f"{module}_script.py"
        path.write_text(_SCRIPTED_SPARSE.format(module=module))
        out.append(subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=True,
                                  env=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(
                                      os.path.abspath(__file__))))).stdout)
    assert "scripted []" in out[0] and "Sparse invariant" in out[0], out[0]
    assert out[1] == out[0]
