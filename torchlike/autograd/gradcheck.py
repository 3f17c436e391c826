"""gradcheck/gradgradcheck: compare tape gradients with central finite differences."""
from __future__ import annotations

import numpy as np

from .. import _creation, _grad_mode as grad_mode
from .. import autograd as _autograd  # the package (same layer): grad() is defined there
from ..tensor import Tensor
from .._ops.shape import stack

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    pass


def _numerical(fn, inputs, i, eps):
    x = inputs[i]
    base = np.asarray(x.detach()._value).astype(np.complex128 if x.dtype.is_complex else np.float64)
    cols = []
    for k in range(base.size):
        outs = []
        for sgn in (1, -1):
            pert = base.copy().reshape(-1)
            pert[k] += sgn * eps
            # (it requires grad as the input did: gradgradcheck's function differentiates through it)
            xi = _creation.tensor(pert.reshape(base.shape), dtype=x.dtype, requires_grad=x.requires_grad)
            args = list(inputs)
            args[i] = xi
            with grad_mode.no_grad():
                o = fn(*args)
            o = o if isinstance(o, tuple) else (o,)
            outs.append(np.concatenate([np.asarray(t._value, dtype=np.float64).reshape(-1) for t in o]))
        cols.append((outs[0] - outs[1]) / (2 * eps))
    return np.stack(cols, 0) if cols else np.zeros((0, 0))  # (in, out)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    """True if analytical and numerical gradients of ``func`` agree (float64 inputs recommended)."""
    agrad = _autograd.grad
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    with grad_mode.enable_grad():
        out = func(*inputs)
    outs = out if isinstance(out, tuple) else (out,)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    sizes = [o.numel() for o in outs]
    for i in diff:
        num = _numerical(func, inputs, i, eps)
        ana = np.zeros_like(num)
        col = 0
        for o, n in zip(outs, sizes):
            flat = o.reshape(-1)
            for k in range(n):
                e = np.zeros(n)
                e[k] = 1
                with grad_mode.enable_grad():
                    g = agrad((flat,), (inputs[i],), (_creation.tensor(e, dtype=o.dtype),), retain_graph=True,
                              allow_unused=True)[0]
                if g is not None:
                    ana[:, col + k] = np.asarray(g._value, dtype=np.float64).reshape(-1)
            col += n
        if not np.allclose(ana, num, rtol=rtol, atol=atol):
            if raise_exception:
                raise GradcheckError(f"Jacobian mismatch for output 0 with respect to input {i},\n"
                                     f"numerical:{num}\nanalytical:{ana}\n")
            return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, **kw):
    """gradcheck of the first derivative (with random grad_outputs)."""
    agrad = _autograd.grad
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    with grad_mode.no_grad():
        out = func(*inputs)
    outs = out if isinstance(out, tuple) else (out,)
    gos = grad_outputs or tuple(_creation.ones_like(o) for o in outs)

    def first(*xs):
        with grad_mode.enable_grad():
            o = func(*xs)
            o = o if isinstance(o, tuple) else (o,)
            dx = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
            gs = agrad(o, dx, gos, create_graph=True, allow_unused=True, materialize_grads=True)
        return tuple(gs)

    return gradcheck(first, inputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)


# ---- torch's deprecated Jacobian helpers ---------------------------------------------------------
def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated torch API: central-difference Jacobians, one ``(input.numel(), output.numel())``
    tensor per input that requires grad (``target`` defaults to ``inputs``).

    >>> import torchlike as torch
    >>> x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    >>> torch.allclose(get_numerical_jacobian(lambda t: t[0] * 3, (x,))[0], 3 * torch.eye(2, dtype=torch.float64))
    True
    """
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_numerical_jacobian no longer supports values of "
                         "grad_out != 1.0.")
    inputs = _as_tuple(inputs)
    target = inputs if target is None else _as_tuple(target)
    out = []
    for i, t in enumerate(inputs):
        if not (getattr(t, "requires_grad", False) and any(t is s for s in target)):
            continue
        out.append(_creation.tensor(_numerical(lambda *a: fn(a), inputs, i, eps).real, dtype=t.dtype))
    return tuple(out)


def get_numerical_jacobian_wrt_specific_input(fn, input_idx, inputs, outputs, eps, input=None,
                                              is_forward_ad=False):
    """The numerical Jacobians of each output with respect to ``inputs[input_idx]``:
    a tuple (one per output) of ``(input.numel(), output.numel())`` tensors."""
    inputs = tuple(inputs)
    full = _numerical(lambda *a: fn(*a), inputs, input_idx, eps)
    res, start = [], 0
    for o in _as_tuple(outputs):
        n = o.numel()
        res.append(_creation.tensor(full[:, start:start + n].real, dtype=inputs[input_idx].dtype))
        start += n
    return tuple(res)


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated torch API: (jacobians, reentrant, correct_grad_sizes, correct_grad_types) where each
    jacobian is ``(input.numel(), output.numel())``, computed row by row with backward."""
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_analytical_jacobian no longer supports values of "
                         "grad_out != 1.0.")
    _grad = _autograd.grad
    inputs = [t for t in _as_tuple(inputs) if getattr(t, "requires_grad", False)]
    n_out = output.numel()
    cols = [[] for _ in inputs]
    flat = output.reshape(-1)
    for k in range(n_out):
        gs = _grad((flat[k],), inputs, retain_graph=True, allow_unused=True)
        for j, (g, t) in enumerate(zip(gs, inputs)):
            cols[j].append(_creation.zeros(t.numel(), dtype=t.dtype) if g is None else g.reshape(-1))
    jac = tuple(stack(c, 1) if c else _creation.zeros(t.numel(), 0, dtype=t.dtype)
                for c, t in zip(cols, inputs))
    return jac, True, True, True
