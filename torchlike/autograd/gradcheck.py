"""gradcheck/gradgradcheck: compare tape gradients with central finite differences."""
from __future__ import annotations

from . import grad_mode

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    pass


def _numerical(fn, inputs, i, eps):
    import numpy as np
    x = inputs[i]
    base = np.asarray(x.detach()._value).astype(np.complex128 if x.dtype.is_complex else np.float64)
    cols = []
    for k in range(base.size):
        outs = []
        for sgn in (1, -1):
            pert = base.copy().reshape(-1)
            pert[k] += sgn * eps
            from .. import _creation
            xi = _creation.tensor(pert.reshape(base.shape), dtype=x.dtype)
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
    import numpy as np
    from ..tensor import Tensor
    from . import grad as agrad
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
                from .. import _creation
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
    from ..tensor import Tensor
    from . import grad as agrad
    from .. import _creation
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
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
