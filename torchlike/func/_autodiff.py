"""torch.func's autodiff transforms on JAX's: grad, grad_and_value, vjp, jvp, linearize, jacrev,
jacfwd, hessian.

Each wraps the user's function as a pure function of JAX arrays (the differentiated inputs arrive as
Tensors wrapping JAX tracers, every other argument is passed through unchanged), applies the JAX
transform and wraps the results back as Tensors, so the transforms nest with each other, with
``vmap`` and with ``torchlike.compile``.
"""
from __future__ import annotations

import functools

import jax

from .._errors import through_jax
from ..tensor import Tensor
from ._common import flatten, inner, tensor_device, to_arrays, to_tensors, unflatten
from ._eager import compiled_for, mark, through, watched

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian"]


def _argnums(args, argnums):
    n = len(args)
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        if not -n <= a < n:
            raise RuntimeError(f"Got argnum={a}, but only {n} positional inputs")
    nums = tuple(a % n for a in nums)
    if len(set(nums)) != len(nums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return nums


def _check_inputs(tree, need_float=True):
    for t in flatten(tree)[0]:
        if not isinstance(t, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
        if need_float and not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")


class _Aux:
    """Carries ``aux`` (a pytree of Tensors, as torch requires) out of a JAX transform as arrays."""

    def __init__(self):
        self.tree = None

    def pack(self, aux):
        leaves, self.tree = flatten(aux)
        for x in leaves:
            if not isinstance(x, Tensor):
                raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
        return [x._value for x in leaves]

    def unpack(self, arrays, dev):
        return unflatten(self.tree, [Tensor._wrap(a, dev) for a in arrays])


def _outputs(out, what):
    """Arrays of a function's Tensor outputs (a Tensor or a pytree of Tensors)."""
    for x in flatten(out)[0]:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{what}: Expected f to be a function that has a single output or a tuple/list of "
                               f"outputs, got an output of type {type(x)}")
    return to_arrays(out)


def _split_aux(out, has_aux, what):
    if has_aux:
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise RuntimeError(f"{what}: output of function f should be a tuple: (output, aux) if has_aux is True")
        return out[0], out[1]
    return out, None


def _substitute(func, args, kwargs, nums, dev, what):
    """``pure(*diff_arrays)``: ``func`` with args ``nums`` replaced by Tensors wrapping the given arrays."""
    def pure(*diff):
        new = list(args)
        for a, d in zip(nums, diff):
            new[a] = to_tensors(d, dev)
        with inner(what) as ctx:
            out = ctx.out = func(*new, **kwargs)
        mark(out)
        return out
    return pure


def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of a scalar-valued ``func`` w.r.t. its ``argnums`` inputs.

    >>> import torchlike
    >>> from torchlike.func import grad_and_value
    >>> grad_and_value(lambda x: (x ** 2).sum())(torchlike.tensor([1., 2.]))
    (tensor([2., 4.]), tensor(5.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return through(("grad_and_value", repr(argnums), has_aux), func, run, args, kwargs)

    def run(*args, **kwargs):
        nums = _argnums(args, argnums)
        diff = [args[a] for a in nums]
        _check_inputs(diff)
        dev = tensor_device(diff)
        call = _substitute(func, args, kwargs, nums, dev, "grad")
        aux_box = _Aux()
        head = "grad_and_value(f)(*args)"

        def pure(*d):
            out, aux = _split_aux(call(*d), has_aux, head)
            if not isinstance(out, Tensor):
                raise RuntimeError(f"{head}: Expected f(*args) to return a Tensor, got {type(out)}")
            if out.ndim != 0:
                raise RuntimeError(f"{head}: Expected f(*args) to return a scalar Tensor, got tensor with "
                                   f"{out.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            return out._value, aux_box.pack(aux) if has_aux else None

        (value, aux), g = jax.value_and_grad(pure, argnums=tuple(range(len(nums))), has_aux=True)(
            *[to_arrays(x) for x in diff])
        g = to_tensors(g if isinstance(argnums, tuple) else g[0], dev)
        value = Tensor._wrap(value, dev)
        if has_aux:
            return g, (value, aux_box.unpack(aux, dev))
        return g, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar-valued ``func`` w.r.t. its ``argnums`` inputs (torch.func.grad).

    >>> import torchlike
    >>> from torchlike.func import grad
    >>> grad(lambda x: x.sin().sum())(torchlike.tensor([0.]))
    tensor([1.])
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, rest = gv(*args, **kwargs)
        return (g, rest[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(output, vjp_fn)``: ``vjp_fn(cotangents)`` returns a tuple of cotangents of the primals.

    >>> import torchlike
    >>> from torchlike.func import vjp
    >>> out, fn = vjp(torchlike.sin, torchlike.tensor([0.]))
    >>> fn(torchlike.ones(1))
    (tensor([1.]),)
    """
    _check_inputs(primals, need_float=False)
    res, needed = watched(lambda: _vjp(func, primals, has_aux), primals)
    if not needed:
        return res
    # the output, and later the cotangents, join eager autograd (as torch's do): each is a compiled call

    def fwd(*p):
        r = _vjp(func, p, has_aux)
        return (r[0], r[2]) if has_aux else r[0]

    def bwd(cts, *p):
        return _vjp(func, p, has_aux)[1](cts)
    out = compiled_for(("vjp", has_aux), func, fwd)(*primals)
    back = compiled_for(("vjp_fn", has_aux), func, bwd)

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        res[1](cotangents)  # torch's checks of the cotangents, eagerly
        return back(cotangents, *primals)
    return (out[0], vjp_fn, out[1]) if has_aux else (out, vjp_fn)


def _vjp(func, primals, has_aux):
    dev = tensor_device(primals)
    call = _substitute(func, primals, {}, tuple(range(len(primals))), dev, "vjp")
    aux_box = _Aux()

    def pure(*d):
        out, aux = _split_aux(call(*d), has_aux, "vjp(f, *primals)")
        return _outputs(out, "vjp(f, *primals)"), (aux_box.pack(aux) if has_aux else None)

    out, pull, aux = through_jax(jax.vjp, pure, *[to_arrays(p) for p in primals], has_aux=True)

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        cts = to_arrays(cotangents)
        if jax.tree_util.tree_structure(cts) != jax.tree_util.tree_structure(out):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               "outputs to the function")
        for c, o in zip(jax.tree_util.tree_leaves(cts), jax.tree_util.tree_leaves(out)):
            if c.shape != o.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {_sz(c.shape)} and output[0] "
                                   f"has a shape of {_sz(o.shape)}.")
        cts = jax.tree_util.tree_map(lambda c, o: c.astype(o.dtype), cts, out)
        return tuple(to_tensors(g, dev) for g in pull(cts))

    res = (to_tensors(out, dev), vjp_fn)
    return res + (aux_box.unpack(aux, dev),) if has_aux else res


def _sz(shape):
    return f"torch.Size({list(shape)})"


def _check_tuple(x, what, name):
    if not isinstance(x, (tuple, list)):
        raise RuntimeError(f"{what}: Expected {name} to be a tuple. E.g. it should be valid to call f(*{name}).")
    return tuple(x)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)``: a forward-mode Jacobian-vector product.

    >>> import torchlike
    >>> from torchlike.func import jvp
    >>> jvp(torchlike.sin, (torchlike.tensor([0.]),), (torchlike.tensor([2.]),))
    (tensor([0.]), tensor([2.]))
    """
    return through(("jvp", strict, has_aux), func, _jvp, (func, primals, tangents), {"has_aux": has_aux})


def _jvp(func, primals, tangents, *, has_aux=False):
    what = "jvp(f, primals, tangents)"
    primals = _check_tuple(primals, what, "primals")
    tangents = _check_tuple(tangents, what, "tangents")
    if len(primals) != len(tangents):
        raise RuntimeError(f"{what}: Expected primals and tangents to have the same python structure. For example, "
                           f"if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{jax.tree_util.tree_structure(to_arrays(primals))} and tangents with structure "
                           f"{jax.tree_util.tree_structure(to_arrays(tangents))}")
    _check_inputs(primals, need_float=False)
    _check_inputs(tangents, need_float=False)
    dev = tensor_device(primals)
    call = _substitute(func, primals, {}, tuple(range(len(primals))), dev, "jvp")
    aux_box = _Aux()

    def pure(*d):
        out, aux = _split_aux(call(*d), has_aux, what)
        return _outputs(out, what), (aux_box.pack(aux) if has_aux else None)

    p = tuple(to_arrays(x) for x in primals)
    t = tuple(jax.tree_util.tree_map(lambda a, b: a.astype(b.dtype), to_arrays(x), y) for x, y in zip(tangents, p))
    for a, b in zip(jax.tree_util.tree_leaves(t), jax.tree_util.tree_leaves(p)):
        if a.shape != b.shape:
            raise RuntimeError(f"{what}: Expected primals and tangents to have the same shape. Got primal of shape "
                               f"{_sz(b.shape)} and tangent of shape {_sz(a.shape)}")
    out, tan, aux = jax.jvp(pure, p, t, has_aux=True)
    res = (to_tensors(out, dev), to_tensors(tan, dev))
    return res + (aux_box.unpack(aux, dev),) if has_aux else res


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)`` where ``jvp_fn(*tangents)`` is the Jacobian-vector product at primals.

    >>> import torchlike
    >>> from torchlike.func import linearize
    >>> out, jvp_fn = linearize(torchlike.sin, torchlike.tensor([0.]))
    >>> jvp_fn(torchlike.tensor([3.]))
    tensor([3.])
    """
    _check_inputs(primals, need_float=False)
    res, needed = watched(lambda: _linearize(func, primals), primals)
    if not needed:
        return res
    # the output joins eager autograd (a compiled call), as torch's does; jvp_fn's results are plain
    out = compiled_for(("linearize",), func, lambda *p: _linearize(func, p)[0])(*primals)
    return out, res[1]


def _linearize(func, primals):
    dev = tensor_device(primals)
    call = _substitute(func, primals, {}, tuple(range(len(primals))), dev, "linearize")
    out, f_jvp = through_jax(jax.linearize, lambda *d: _outputs(call(*d), "linearize"),
                             *[to_arrays(p) for p in primals])

    def jvp_fn(*tangents):
        return to_tensors(f_jvp(*[to_arrays(t) for t in tangents]), dev)
    return to_tensors(out, dev), jvp_fn


def _jac(jax_jac, name):
    def transform(func, argnums=0, *, has_aux=False, **_ignored):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return through((name, repr(argnums), has_aux), func, run, args, kwargs)

        def run(*args, **kwargs):
            nums = _argnums(args, argnums)
            diff = [args[a] for a in nums]
            _check_inputs(diff, need_float=False)
            dev = tensor_device(diff)
            call = _substitute(func, args, kwargs, nums, dev, name)
            aux_box = _Aux()
            what = f"{name}(f, ...)(*args)"

            def pure(*d):
                out, aux = _split_aux(call(*d), has_aux, what)
                return _outputs(out, what), (aux_box.pack(aux) if has_aux else None)

            jnums = tuple(range(len(nums))) if isinstance(argnums, tuple) else 0
            jac, aux = jax_jac(pure, argnums=jnums, has_aux=True)(*[to_arrays(x) for x in diff])
            jac = to_tensors(jac, dev)
            return (jac, aux_box.unpack(aux, dev)) if has_aux else jac
        return wrapper
    return transform


jacrev = _jac(jax.jacrev, "jacrev")
jacrev.__name__ = jacrev.__qualname__ = "jacrev"
jacrev.__doc__ = """The Jacobian of ``func`` w.r.t. its ``argnums`` inputs by reverse mode (torch.func.jacrev).

    >>> import torchlike
    >>> from torchlike.func import jacrev
    >>> jacrev(torchlike.sin)(torchlike.zeros(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
jacfwd = _jac(jax.jacfwd, "jacfwd")
jacfwd.__name__ = jacfwd.__qualname__ = "jacfwd"
jacfwd.__doc__ = """The Jacobian of ``func`` w.r.t. its ``argnums`` inputs by forward mode (torch.func.jacfwd).

    >>> import torchlike
    >>> from torchlike.func import jacfwd
    >>> jacfwd(torchlike.sin)(torchlike.zeros(2))
    tensor([[1., 0.],
            [0., 1.]])
    """


def hessian(func, argnums=0):
    """The Hessian of a scalar ``func``: ``jacfwd(jacrev(func, argnums), argnums)``.

    >>> import torchlike
    >>> from torchlike.func import hessian
    >>> hessian(lambda x: (x ** 3).sum())(torchlike.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
