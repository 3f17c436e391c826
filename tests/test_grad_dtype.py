"""``Tensor.grad_dtype`` (torch 2.13): the dtype a leaf's gradient must have (its own by default, any after
``None``), the dtype backward accumulates it in, and the messages of ``.grad = g`` that does not fit; plus the
engine's once-per-process warning for ``backward(create_graph=True)``."""
import subprocess
import sys
import textwrap

import pytest
import torch

import torchlike
from conftest import raises_like_torch


def _run(lib):
    x = lib.tensor([1.0, -2.0], requires_grad=True)
    out = [x.grad_dtype]
    x.grad_dtype = lib.float64
    out.append(x.grad_dtype)
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    out += [x.grad.dtype, x.grad.tolist()]
    x.grad = lib.ones(2, dtype=lib.float64)
    y = lib.tensor([1.0, 2.0], requires_grad=True)
    y.grad_dtype = None
    out.append(y.grad_dtype)
    (y * 2).sum().backward()
    out.append(y.grad.dtype)
    y.grad = lib.ones(2, dtype=lib.int64)
    out.append(y.grad.dtype)
    z = lib.randn(2)
    z.grad_dtype = lib.float64
    out.append(z.grad_dtype)
    w = lib.tensor([0.5, 1.5], requires_grad=True)
    w.grad_dtype = lib.bfloat16
    v = lib.tensor([2.0, 4.0], requires_grad=True)
    lib.autograd.grad((w * v).sum(), w)  # (autograd.grad accumulates nothing)
    (w * v).sum().backward()
    out += [w.grad.dtype, w.grad.tolist(), v.grad.dtype]
    w.grad_dtype = lib.bfloat16  # the gradient's dtype: allowed
    w.grad = None
    w.grad_dtype = lib.float32  # back to the default
    out.append(w.grad_dtype)
    return [str(o) for o in out]


def test_grad_dtype_values_like_torch():
    assert _run(torchlike) == _run(torch)


@pytest.mark.parametrize("case", ["grad_dtype_mismatch", "size_mismatch", "dtype_before_size", "not_a_dtype",
                                  "non_leaf_set", "existing_grad", "plain_dtype_mismatch"])
def test_grad_dtype_errors_like_torch(case):
    def fn(m):
        x = m.randn(2, requires_grad=True)
        if case == "grad_dtype_mismatch":
            x.grad_dtype = m.float64
            x.grad = m.ones(2)
        elif case == "size_mismatch":
            x.grad = m.zeros(3, 2)
        elif case == "dtype_before_size":
            x.grad = m.zeros(3, dtype=m.float16)
        elif case == "not_a_dtype":
            x.grad_dtype = "x"
        elif case == "non_leaf_set":
            (x * 2).grad_dtype = m.float64
        elif case == "existing_grad":
            x.grad = m.ones(2)
            x.grad_dtype = m.float64
        else:
            x.grad = m.ones(2, dtype=m.complex64)
    raises_like_torch(fn)


def test_grad_dtype_of_a_non_leaf_raises_like_torch():
    """(torch's setter also gives the non-leaf ``.grad`` warning; its getter does not)"""
    for lib in (torch, torchlike):
        y = lib.ones(2, requires_grad=True) * 2
        with pytest.raises(RuntimeError, match="grad_dtype can only be accessed on leaf tensors"):
            y.grad_dtype
        with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed"):
            with pytest.raises(RuntimeError, match="grad_dtype can only be set on leaf tensors"):
                y.grad_dtype = lib.float64


def test_backward_with_create_graph_warns_once_per_process_like_torch():
    code = textwrap.dedent("""
        import warnings, torch
        warnings.simplefilter("always")
        x = torch.ones(2, requires_grad=True)
        torch.autograd.grad((x * x).sum(), x, create_graph=True)
        print("grad done")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            (x * x).sum().backward(create_graph=True)
            (x * x).sum().backward(create_graph=True)
        for m in w:
            print(m.category.__name__, str(m.message).split(" (Triggered")[0])
    """)
    outs = [subprocess.run([sys.executable, *runner, "-c", code], capture_output=True, text=True, timeout=300).stdout
            for runner in ([], ["-m", "torchlike", "run"])]
    assert "reference cycle" in outs[0] and outs[0].count("UserWarning") == 1, outs[0]
    assert outs[1] == outs[0]
