"""gradcheck/gradgradcheck: compare tape gradients with central finite differences."""
from __future__ import annotations

import numpy as np

from .. import _creation, _dtype, _grad_mode as grad_mode
from .. import autograd as _autograd  # the package (same layer): grad() is defined there
from ..tensor import Tensor
from .._ops.shape import stack
from ..testing._comparison import make_tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    pass


def _numerical(fn, inputs, i, eps):
    """Central differences of every output of ``fn`` (differentiable or not) in input ``i``: one
    ``(input numel, output numel)`` array per output."""
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
            outs.append([np.asarray(t._value, dtype=np.float64).reshape(-1) for t in o])
        cols.append([(p - m) / (2 * eps) for p, m in zip(outs[0], outs[1])])
    if not cols:
        return []
    return [np.stack([c[j] for c in cols], 0) for j in range(len(cols[0]))]


def _numerical_joined(fn, inputs, i, eps):
    """``_numerical`` with the outputs' columns side by side: one ``(input numel, total output numel)`` array."""
    parts = _numerical(fn, inputs, i, eps)
    return np.concatenate(parts, axis=1) if parts else np.zeros((0, 0))


def _differentiable_outputs(out):
    return tuple(o for o in (out if isinstance(out, tuple) else (out,)) if o.requires_grad)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    """True if analytical and numerical gradients of ``func`` agree (float64 inputs recommended).

    As torch's: only the outputs that require grad are checked; with none, every numerical gradient must be
    zero. A mismatch names the output among those and the input among the ones that require grad.
    """
    agrad = _autograd.grad
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    with grad_mode.enable_grad():
        out = func(*inputs)
    outs = out if isinstance(out, tuple) else (out,)
    diff_outs = [k for k, o in enumerate(outs) if o.requires_grad]
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    for j, i in enumerate(diff):
        num = _numerical(func, inputs, i, eps)
        if not diff_outs:
            if any(not np.allclose(n, 0, rtol=rtol, atol=atol) for n in num):
                return _fail(raise_exception, "Numerical gradient for function expected to be zero")
            continue
        for oi, k in enumerate(diff_outs):
            flat = outs[k].reshape(-1)
            ana = np.zeros_like(num[k])
            for c in range(flat.numel()):
                e = np.zeros(flat.numel())
                e[c] = 1
                with grad_mode.enable_grad():
                    g = agrad((flat,), (inputs[i],), (_creation.tensor(e, dtype=flat.dtype),), retain_graph=True,
                              allow_unused=True)[0]
                if g is not None:
                    ana[:, c] = np.asarray(g._value, dtype=np.float64).reshape(-1)
            if not np.allclose(ana, num[k], rtol=rtol, atol=atol):
                dt = inputs[i].dtype
                return _fail(raise_exception, f"Jacobian mismatch for output {oi} with respect to input {j},\n"
                             f"numerical:{_creation.tensor(num[k], dtype=dt)}\n"
                             f"analytical:{_creation.tensor(ana, dtype=dt)}\n")
    return True


def _fail(raise_exception, msg):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, **kw):
    """gradcheck of the first derivative, in the inputs and in the grad_outputs.

    As torch's: without ``grad_outputs`` they are random (``torch.testing.make_tensor`` in [-1, 1), drawn
    from the global generator) and require grad, so a backward that does not differentiate through the
    incoming gradient fails.
    """
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if grad_outputs is None:
        gos = tuple(make_tensor(o.shape, dtype=o.dtype if o.dtype.is_floating_point or o.dtype.is_complex
                                else _dtype.float64, device=o.device, low=-1, high=1, requires_grad=True,
                                noncontiguous=gen_non_contig_grad_outputs)
                    for o in _differentiable_outputs(func(*inputs)))
    else:
        gos = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
    n = len(gos)
    diff_in = {i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad}
    diff_go = {i for i, g in enumerate(gos) if g.requires_grad}

    def first(*args):   # (gradcheck's finite differences run it under no_grad: it differentiates anyway)
        with grad_mode.enable_grad():
            xs = tuple(x.requires_grad_() if i in diff_in else x for i, x in enumerate(args[:-n]))
            outs = _differentiable_outputs(func(*xs))
            gs = tuple(g.requires_grad_() if i in diff_go else g for i, g in enumerate(args[-n:]))
            grads = _autograd.grad(outs, [x for i, x in enumerate(xs) if i in diff_in], gs, create_graph=True,
                                   allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first, inputs + gos, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)


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
        out.append(_creation.tensor(_numerical_joined(lambda *a: fn(a), inputs, i, eps).real, dtype=t.dtype))
    return tuple(out)


def get_numerical_jacobian_wrt_specific_input(fn, input_idx, inputs, outputs, eps, input=None,
                                              is_forward_ad=False):
    """The numerical Jacobians of each output with respect to ``inputs[input_idx]``:
    a tuple (one per output) of ``(input.numel(), output.numel())`` tensors."""
    inputs = tuple(inputs)
    full = _numerical_joined(lambda *a: fn(*a), inputs, input_idx, eps)
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
