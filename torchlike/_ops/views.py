"""View ops: results share their root's storage (see ``_views``) and are differentiable."""
from __future__ import annotations

import math
import numbers
import operator

import numpy as np
from jax import lax

from .. import _dtype, _grad_mode, _views
from .. import _profiler_state as _prof
from .. import _memory_format as _mfmt
from .._errors import argument_error, caller_op, check_alloc, check_int64_sizes, extra_arguments_error, int_arg, method_argument_error, tp_name, warn_at_caller
from . import checks as C
from .._tape import FORWARD_AD
from .._mutation import alias_op, copy_slices, view_of_root  # noqa: F401  (one copy, in layer 2; re-exported)
from ._util import Tensor, dispatch, is_symbolic, keyword_shape, register, shape_arg, wrap_dim
from .basic import clone

__all__ = ["view_step", "view_of_root", "copy_slices", "alias_op"]


def _read_impl(x, step):
    return _views.read(x, step)


def _strided_of_view(root, v, chain, step):
    """``as_strided`` (``step``) of the view ``chain`` of ``root`` whose values are ``v``, differentiable in ``v``
    alone, as torch's AsStridedBackward0 is in its input: the storage is the root's (held constant) with the
    view's elements put back, so a gradient reaches the places of the view's elements and no other."""
    pos = _views.index_map(chain, tuple(root.shape)).reshape(-1)
    storage = lax.stop_gradient(root).reshape(-1).at[pos].set(v.reshape(-1).astype(root.dtype))
    return _views.read(storage.reshape(root.shape), step)


_NAMES = {"reshape": "ViewBackward0", "permute": "PermuteBackward0", "index": "SliceBackward0",
          "expand": "ExpandBackward0", "diagonal": "DiagonalBackward0", "unfold": "UnfoldBackward0",
          "as_strided": "AsStridedBackward0", "real": "RealBackward0", "imag": "ImagBackward0",
          "alias": "AliasBackward0", "view_dtype": "ViewBackward0", "as_real": "ViewAsRealBackward0",
          "as_complex": "ViewAsComplexBackward0", "conj": "ConjBackward0", "neg": "NegViewBackward0"}


def _lazy_shape(t, step):
    """The shape of view ``step`` of ``t`` when it can be a lazy view (a shape-only step), else None."""
    kind = step[0]
    if kind == "reshape" or kind == "expand":
        return step[1]
    if kind == "permute":
        sh = t._x.shape
        return tuple(sh[d] for d in step[1])
    return None


def view_step(t, step, name=None):
    """Apply one view step to tensor ``t``; the result aliases t's root.  Outside autograd and tracing a
    reshape/permute/expand is a lazy view (``Tensor._lazy_view``): no program runs until its value is read,
    and an op consuming it reads it from the root inside its own program (``_dispatch``)."""
    if FORWARD_AD[0] is not None:  # a dual level is entered: the view's tangent is the same view of t's
        return FORWARD_AD[0].view(t, step, _view_step(t, step, name))
    return _view_step(t, step, name)


def _view_step(t, step, name):
    if _prof.SUBCLASSES and type(t) in _prof.SUBCLASSES:  # a __torch_dispatch__ subclass sees the aten view op
        return _prof.SUBCLASS_HANDLER[0].view(t, step, name)
    if step[0] in _mfmt._REORDERING:  # (elementwise results may take this view's order: _memory_format)
        _mfmt.SEEN[0] = True
    shape = _lazy_shape(t, step)
    if shape is not None:
        lazy = t._lazy_view(step, shape)
        if lazy is not None:
            return lazy
    src = t
    if step[0] == "as_strided":
        if t._vbase is not None and t._chain[0][0] != "alias":
            src = t._vbase  # (strides count in the storage; an alias -- .data, numpy's, shared -- is laid out as it)
        if src._st is not None:  # a storage in torch's order for the root's strides (_memory_format)
            step = step + (src._st,)
        if src is not t and (t._rg or t._grad_fn is not None) and _grad_mode._state.enabled:
            out = dispatch(_strided_of_view, (Tensor._wrap(src._value, src._dev), t),
                           (("chain", t._chain), ("step", step)), name=name or "AsStridedBackward0", saves=False)
            return t._make_view(out, step)
    spec = _views.index_spec(step[1]) if step[0] == "index" else (None, None)
    if spec[0] is not None:  # starts as an argument: a new start position compiles nothing (_views)
        lazy = t._lazy_view(step, _views.index_shape(t._x.shape, spec[0]), spec)
        if lazy is not None:
            return lazy
        out = dispatch(_views.dynamic_index, (src, np.array(spec[1], np.int64)), (("spec", spec[0]),),
                       name=name or "SliceBackward0", saves=False)
        return t._make_view(out, step)
    out = dispatch(_read_impl, (src,), (("step", step),), name=name or _NAMES[step[0]], saves=False,
                   jit=step[0] != "index", diff=step[0] != "view_dtype")
    return t._make_view(out, step)


# --- shape views -------------------------------------------------------------------------------
def _infer_shape(shape, numel):
    if type(numel) is int:  # (plain ints, the common case: no symbolic dims to look for)
        neg = None
        for i, s in enumerate(shape):
            if type(s) is not int or s < 0 and (s != -1 or neg is not None):
                break
            if s == -1:
                neg = i
        else:
            if neg is None:
                if math.prod(shape) != numel:
                    check_int64_sizes(shape)
                    raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
                return tuple(shape)
            rest = -math.prod(shape)
            if rest and not numel % rest:
                return tuple(shape[:neg]) + (numel // rest,) + tuple(shape[neg + 1:])
    shape = list(shape)
    if any(is_symbolic(s) for s in shape) or is_symbolic(numel):
        neg = [i for i, s in enumerate(shape) if not is_symbolic(s) and s == -1]
        if neg:
            rest = math.prod(s for s in shape if is_symbolic(s) or s != -1)
            shape[neg[0]] = numel // rest
        return tuple(shape)
    neg = []
    for i, s in enumerate(shape):  # (in one pass, as torch's infer_size: the first offending dim names the error)
        if s == -1:
            if neg:
                raise RuntimeError("only one dimension can be inferred")
            neg.append(i)
        elif s < -1:
            check_int64_sizes(shape)
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
    if neg:
        rest = math.prod(s for s in shape if s != -1)
        if rest == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                               "unspecified dimension size -1 can be any value and is ambiguous")
        if rest == 0 or numel % rest:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // rest
    if math.prod(shape) != numel:
        check_int64_sizes(shape)
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _viewable(t, shape):
    if t._vbase is None and t._st is None:
        return True
    return _views.compute_view_strides(tuple(t.shape), t.stride(), shape) is not None


@register(promote="none")
def view(input, *shape, dtype=None, size=None):
    """A view with a new shape (torch.Tensor.view); ``view(dtype)`` reinterprets bits."""
    if shape and type(shape[0]) is int and dtype is None and size is None and FORWARD_AD[0] is None:
        n = math.prod(input._x.shape)  # (the common call, ``x.view(-1)`` / ``x.view(B * T, C)``, checked as below)
        if type(n) is int:
            shape = _infer_shape(shape_arg(shape), n)
            if input._vbase is None and input._st is None or _viewable(input, shape):
                step = ("reshape", shape)  # (what view_step does with it: a lazy view where it can be)
                lazy = input._lazy_view(step, shape)
                return lazy if lazy is not None else _view_step(input, step, None)
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    if dtype is not None or size is not None:
        shape = (dtype,) if dtype is not None else (size,)
    if len(shape) == 1 and isinstance(shape[0], (_dtype.dtype, type)) and not isinstance(shape[0], tuple):
        return _view_dtype(input, _dtype.to_dtype(shape[0]))
    if not shape:  # (neither overload takes no argument)
        raise TypeError("view() received an invalid combination of arguments - got (), but expected one of:\n"
                        " * (torch.dtype dtype)\n * (tuple of ints size)\n")
    shape = _infer_shape(shape_arg(shape), input.numel())
    if not _viewable(input, shape):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    if shape == tuple(input.shape):
        return view_step(input, ("reshape", shape))
    return view_step(input, ("reshape", shape))


def _view_dtype(input, dt):
    if dt.itemsize != input.dtype.itemsize:
        return _view_dtype_resized(input, dt)
    return view_step(input, ("view_dtype", dt.np))


def _view_dtype_resized(input, dt):
    """``view(dtype)`` across element sizes: torch's checks, then the bits reinterpreted along the last dim
    (between a complex dtype and its real one a view through ``as_real``/``as_complex``; otherwise a new
    tensor: torchlike's other views keep the element size)."""
    a, b = input.dtype.itemsize, dt.itemsize
    what = f"to view {_dtype._CAP[input.dtype.name]} as {_dtype._CAP[dt.name]} (different element sizes)"
    if input.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    if input.stride(-1) != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {input.stride(-1)}")
    if b > a:
        ratio = b // a
        if input.shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {input.shape[-1]}")
        if input.storage_offset() % ratio:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got "
                               f"{input.storage_offset()}")
    if input.dtype.is_complex and dt is input.dtype.to_real():  # a view, as torch's: the (re, im) pairs
        pairs = view_step(input, ("as_real",))
        return pairs.view(*input.shape[:-1], 2 * input.shape[-1])
    if dt.is_complex and input.dtype is dt.to_real():
        return view_step(input.view(*input.shape[:-1], input.shape[-1] // 2, 2), ("as_complex",))
    x = input._value
    if b > a:
        x = _views.bitcast(x.reshape(x.shape[:-1] + (x.shape[-1] // (b // a), b // a)), dt.np)
    else:
        x = _views.bitcast(x, dt.np)
        x = x.reshape(x.shape[:-2] + (x.shape[-2] * x.shape[-1],))
    return Tensor._wrap(x, input._dev)


@register(promote="none")
def reshape(input, *sizes, shape=None):
    """Like view when the strides allow it, otherwise a copy (torch.reshape)."""
    shape = _infer_shape(shape_arg(keyword_shape(sizes, shape, "reshape", "shape")), input.numel())
    if _viewable(input, shape):
        return view_step(input, ("reshape", shape))
    # torch's _unsafe_view of a clone: a new tensor, no view of anything (``_base`` None, writes stay in it)
    return dispatch(_reshape_impl, (clone(input, memory_format=_mfmt.contiguous_format),), (("shape", shape),),
                    name="UnsafeViewBackward0", saves=False)


def _reshape_impl(x, shape):
    return x.reshape(shape)


def view_as(input, other):
    try:
        shape = other.shape
    except AttributeError:  # (torch's parser: a Tensor)
        C.reject_types("view_as", (other, "Tensor", "other", 1))
        raise
    return view(input, tuple(shape))


def reshape_as(input, other):
    try:
        shape = other.shape
    except AttributeError:  # (torch's parser: a Tensor)
        C.reject_types("reshape_as", (other, "Tensor", "other", 1))
        raise
    return reshape(input, tuple(shape))


register("view_as", namespaces=())(view_as)
register("reshape_as", namespaces=())(reshape_as)


@register()
def flatten(input, start_dim=0, end_dim=-1):
    """Flatten dims ``start_dim..end_dim`` into one."""
    nd = input.ndim
    if nd == 0:  # (the dims must still be valid for a 0-d tensor: -1 or 0)
        wrap_dim(start_dim, 0), wrap_dim(end_dim, 0)
        return reshape(input, (1,))
    s, e = wrap_dim(start_dim, nd), wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    sh = tuple(input.shape)
    return reshape(input, sh[:s] + (math.prod(sh[s:e + 1]),) + sh[e + 1:])


def _int_size(v):  # an int of torch's int lists: no bool; a 0-dim integer tensor
    if isinstance(v, Tensor):
        return v.ndim == 0 and not (v.dtype.is_floating_point or v.dtype.is_complex or v.dtype is _dtype.bool)
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool)


@register()
def unflatten(input, dim, sizes):
    """Split dim ``dim`` into ``sizes``."""
    if input.ndim == 0 and isinstance(dim, int):  # (torch wraps without the scalar allowance here)
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as {dim} but tensor has no "
                           f"dimensions")
    if sizes is not None and not isinstance(sizes, (tuple, list, Tensor)):  # (torch's parser: an int list; the
        raise TypeError(f"unflatten(): argument 'sizes' must be tuple of ints, not {tp_name(sizes)}")  # wrapper
    for i, v in enumerate(sizes if isinstance(sizes, (tuple, list)) else ()):  # places the position)
        if not _int_size(v):
            raise TypeError(f"unflatten(): argument 'sizes' must be tuple of ints, but found element of type "
                            f"{tp_name(v)} at pos {i}" if i == 0 else f"unflatten(): argument 'sizes' failed to "
                            f"unpack the object at pos {i + 1} with error \"type must be tuple of ints,but got "
                            f"{tp_name(v)}\"")
    d = wrap_dim(dim, input.ndim)
    sh = tuple(input.shape)
    if sizes is None or not len(sizes):
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        inferred = _infer_shape(tuple(sizes), sh[d])
    except RuntimeError as e:  # (torch's words for the sizes; infer_size's own error otherwise)
        if "is invalid for input of size" not in str(e):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({sh[d]}) in the input tensor") from None
    return view(input, sh[:d] + tuple(inferred) + sh[d + 1:])


@register(method_varargs=True)
def squeeze(input, dim=None):
    """Remove size-1 dims (all, or those in ``dim``)."""
    sh = tuple(input.shape)
    if dim is None:
        dims = {i for i, s in enumerate(sh) if s == 1}
    else:
        if isinstance(dim, Tensor):  # (torch's parser: a one-element integer tensor is an int dim, none a list)
            if dim.numel() != 1 or dim.dtype.is_floating_point or dim.dtype.is_complex:
                raise argument_error(dim, "tuple of ints", "dim", "squeeze")
            dim = int(dim)
        dd = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dd) > 1:
            w = [wrap_dim(d, len(sh)) for d in dd]
            for j in range(1, len(w)):
                if w[j] in w[:j]:
                    raise RuntimeError(f"dim {w[j]} appears multiple times in the list of dims")
        dims = {wrap_dim(d, len(sh)) for d in dd if sh and sh[wrap_dim(d, len(sh))] == 1} if sh else set()
        if not sh:
            for d in dd:
                wrap_dim(d, 0)
    node = "SqueezeBackward0" if dim is None else "SqueezeBackward1" if isinstance(dim, int) else "SqueezeBackward2"
    # (the tag gives the view torch's squeeze strides, not view()'s: _views.strides_of)
    return view_step(input, ("reshape", tuple(s for i, s in enumerate(sh) if i not in dims), ("squeeze", tuple(sorted(dims)))),
                     name=node)


@register()
def unsqueeze(input, dim):
    """Insert a size-1 dim at ``dim``."""
    sh = tuple(input.shape)
    d = wrap_dim(dim, len(sh) + 1)
    return view_step(input, ("reshape", sh[:d] + (1,) + sh[d:], ("unsqueeze", d)), name="UnsqueezeBackward0")


@register(method_varargs=True)
def permute(input, dims):
    """Reorder dims (the method also takes them spread out: ``x.permute(1, 0)``).

    >>> import torchlike
    >>> torchlike.permute(torchlike.zeros(2, 3), (1, 0)).shape
    torch.Size([3, 2])
    """
    if isinstance(dims, (numbers.Integral, Tensor)):  # (the method's lone int is made a list by its wrapper)
        raise TypeError(f"permute(): argument 'dims' must be tuple of ints, not {type(dims).__name__}")
    dims = shape_arg((dims,)) if not isinstance(dims, (tuple, list)) else tuple(dims)
    nd = input.ndim
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
                           f"to len(dims) = {len(dims)}")
    p = tuple(wrap_dim(d, nd) for d in dims)
    if len(set(p)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return view_step(input, ("permute", p))


@register(aliases=("swapdims",))
def transpose(input, dim0, dim1):
    """Swap two dims."""
    return _transpose(input, dim0, dim1, "TransposeBackward0")


@register()
def swapaxes(input, axis0, axis1):
    """Swap two dims (numpy's name of ``transpose``)."""
    return _transpose(input, axis0, axis1, "TransposeBackward0")


def _transpose(input, dim0, dim1, node):
    nd = input.ndim
    p = list(range(nd))
    if nd == 0:
        wrap_dim(dim0, 0), wrap_dim(dim1, 0)
        return view_step(input, ("permute", ()))
    a, b = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    p[a], p[b] = p[b], p[a]
    return view_step(input, ("permute", tuple(p)), name=node)


@register()
def t(input, *args):  # (args: torch's words for those given, see extra_arguments_error)
    """Transpose a tensor of at most 2 dims."""
    if args:
        raise extra_arguments_error("t", len(args), no_arguments=True)
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return _transpose(input, 0, -1, "TBackward0") if input.ndim == 2 else \
        view_step(input, ("permute", tuple(range(input.ndim))), name="TBackward0")


@register(aliases=("moveaxis",))
def movedim(input, source, destination):
    """Move dims ``source`` to positions ``destination``."""
    nd = input.ndim
    if isinstance(source, int) != isinstance(destination, int):  # (torch's overloads: two ints or two int lists;
        raise TypeError("movedim")  # the op table's wrapper raises the parser's "invalid combination")
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
                           f"contain the same number of dims as destination ({list(dst)} dims)")
    wsrc = [wrap_dim(s, nd) for s in src]
    wdst = [wrap_dim(d, nd) for d in dst]
    for what, orig, w in (("source", src, wsrc), ("destination", dst, wdst)):
        if len(set(w)) != len(w):
            raise RuntimeError(f"movedim: repeated dim in `{what}` ({list(orig)})")
    src, dst = wsrc, wdst
    if nd == 0:  # (dim 0 or -1 of a 0-d tensor: itself)
        return view_step(input, ("permute", ()))
    order = [n for n in range(nd) if n not in src]
    perm = [None] * nd
    for s, d in sorted(zip(dst, src)):
        perm[s] = d
    it = iter(order)
    perm = tuple(p if p is not None else next(it) for p in perm)
    return view_step(input, ("permute", perm))


@register()
def expand(input, *sizes, size=None):
    """Broadcast size-1 dims to ``sizes`` without copying (-1 keeps a dim)."""
    sizes = shape_arg(keyword_shape(sizes, size, "expand", "size"))
    sh = tuple(input.shape)
    if len(sizes) < len(sh):
        raise RuntimeError(f"expand({input.type()}{{{list(sh)}}}, size=[{', '.join(map(str, sizes))}]): the "
                           f"number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({len(sh)})")
    lead = len(sizes) - len(sh)
    out = []
    for i in range(len(sizes) - 1, -1, -1):  # (from the last dim, as torch's inferExpandGeometry: it names the
        s = sizes[i]  # last mismatch)
        if i < lead:
            if s == -1:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            out.append(s)
        else:
            cur = sh[i - lead]
            if s == -1:
                s = cur
            if cur != s and cur != 1:
                raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) "
                                   f"at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor "
                                   f"sizes: {list(sh)}")
            out.append(s)
    out = tuple(reversed(out))
    if min(out, default=0) < 0:  # (torch computes the view's numel from the negative size, after the checks)
        raise RuntimeError("numel: integer multiplication overflow")
    if out == sh:
        return view_step(input, ("reshape", sh))
    check_alloc(out, input.dtype, overflow="numel")  # torch's view is free; JAX materialises it
    return view_step(input, ("expand", out))


def expand_as(input, other):
    try:
        shape = other.shape
    except AttributeError:  # (torch's parser: a Tensor)
        C.reject_types("expand_as", (other, "Tensor", "other", 1))
        raise
    return expand(input, tuple(shape))


register("expand_as", namespaces=())(expand_as)


@register()
def broadcast_to(input, size):
    if isinstance(size, Tensor):  # (torch's parser takes no Tensor for the size, whatever its shape)
        raise method_argument_error(size, "tuple of ints", "size", "broadcast_to", 1)
    try:
        size = tuple(size)
    except TypeError:  # (a float, None: torch's parser error, not Python's "not iterable")
        raise method_argument_error(size, "tuple of ints", "size", "broadcast_to", 1) from None
    return expand(input, size)


@register()
def narrow(input, dim, start, length):
    """Slice ``length`` elements of ``dim`` starting at ``start``."""
    if any(isinstance(a, (float, np.floating)) for a in (dim, start, length)):
        raise TypeError("narrow")  # (a float for an int: the op table's wrapper gives torch's parser error)
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, Tensor):  # torch's Tensor-start overload (for XLA)
        if start.ndim != 0 or start.dtype.is_floating_point or start.dtype.is_complex or \
                start.dtype is _dtype.bool:
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = start.item()
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    start = int(start)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    idx = (("s", None, None, None),) * d + (("s", start, start + length, 1),)
    return view_step(input, ("index", idx))


@register()
def select(input, dim, index):
    """Index ``dim`` at ``index``, removing the dim."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    if isinstance(index, (float, complex, np.floating, np.complexfloating)):
        raise TypeError("select(): index must be an int")  # (the op table raises torch's parser error)
    return _select(input, dim, index, "SelectBackward0")


def _select(input, dim, index, node):
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    index = int(index)
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {d}")
    idx = (("s", None, None, None),) * d + (index % n,)
    return view_step(input, ("index", idx), name=node)


@register()
def unbind(input, dim=0):
    """All slices along ``dim``, as views."""
    if input.ndim == 0:
        if not isinstance(dim, (int, np.integer)):
            wrap_dim(dim, 1)  # (None or a tuple: torch's parser error)
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim)
    return _multi_output(input, tuple(_select(input, d, i, "UnbindBackward0") for i in range(input.shape[d])))


def _multi_output(input, outs):
    """Mark the views split/chunk/unbind return (one node with several views in torch): with grad mode on and
    ``input`` requiring grad, an in-place write to one is torch's "returns multiple views" error
    (``Tensor._check_inplace_leaf``)."""
    if _grad_mode._state.enabled and input.requires_grad:
        for k, o in enumerate(outs):
            o.__dict__["_multi_view"] = k
    return outs


@register()
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of dims (dim1, dim2), moved to the last dim."""
    nd = input.ndim
    a, b = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return view_step(input, ("diagonal", int_arg(offset, "offset"), a, b))


@register()
def as_strided(input, size, stride, storage_offset=None):
    """A view with explicit sizes and strides over the root's storage."""
    off = input.storage_offset() if storage_offset is None else int(storage_offset)
    if any(isinstance(st, (int, np.integer)) and st < 0 for st in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{[int(st) for st in stride]}")
    check_alloc(tuple(int(s) for s in size), 8, overflow="numel")  # JAX materialises it (via an int64 index)
    return view_step(input, ("as_strided", tuple(int(s) for s in size), tuple(int(s) for s in stride), off))


@register(namespaces=())
def unfold(input, dimension, size, step):
    """All windows of ``size`` along ``dimension`` with stride ``step`` (a new last dim)."""
    d = wrap_dim(dimension, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if input.ndim == 0:  # torch: a 0-d tensor unfolds to one window of size 1
        return view_step(input, ("reshape", (1,)))
    return view_step(input, ("unfold", d, int(size), int(step)))


def _real(input):
    if not input.dtype.is_complex:
        return input
    return view_step(input, ("real",))


def _imag(input):
    if not input.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return view_step(input, ("imag",))


register("real", method=False)(_real)
register("imag", method=False)(_imag)
Tensor.real = property(_real)
Tensor.imag = property(_imag)
_T_WARNED = set()  # torch's TORCH_WARN_ONCE: each of the two deprecations once per process


def _numpy_T(self):
    """``x.T``: the dimensions reversed; deprecated (with torch's once-only warnings) for other than 2-D."""
    key = min(self.ndim, 1)
    if self.ndim != 2 and key not in _T_WARNED:
        _T_WARNED.add(key)
        warn_at_caller("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases. "
                      "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4321.)"
                      if self.ndim == 0 else
                      "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and "
                      "it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices "
                      "or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor. "
                      "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)")
    return permute(self, tuple(reversed(range(self.ndim))))


Tensor.T = property(_numpy_T)
_MT_WARNING = {"mT": "This function is the identity in these cases. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4373.)",
               "mH": "Consider using x.conj(). (Triggered internally at "
                     "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4382.)"}


def matrix_transpose(self, name="mT"):
    """``x.mT`` (``name="mH"``: the caller conjugates it): the last two dimensions swapped. As torch, a 1-D
    tensor is refused and a 0-D one is returned as it is (with a once-only deprecation warning)."""
    if self.ndim >= 2:
        return transpose(self, -2, -1)
    if self.ndim == 1:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got 1-D tensor.")
    if name not in _T_WARNED:
        _T_WARNED.add(name)
        warn_at_caller(f"Tensor.{name} is deprecated on 0-D tensors. {_MT_WARNING[name]}")
    return permute(self, ())


Tensor.mT = property(matrix_transpose)


def _sizes_error(sizes):
    """torch's parser error for split sizes that are not a list of ints (a float, None, a list holding a str).
    torch's ``split`` is Python calling ``split_with_sizes(self, sizes, dim)`` for anything but an int, so its error
    names that with the function's position 2; ``split_with_sizes``'s own counts as a method's (see
    ``method_argument_error``)."""
    op = caller_op()
    split = op == "split"
    name, position = ("split_with_sizes", 2) if split else (op, 1)
    if not isinstance(sizes, (list, tuple)):
        err = argument_error(sizes, "tuple of ints", "split_sizes", name, position)
    else:
        for i, bad in enumerate(sizes):
            try:
                operator.index(bad)
            except TypeError:
                break
        words = f"must be tuple of ints, but found element of type {tp_name(bad)} at pos {i}"
        err = TypeError(f"{name}(): argument 'split_sizes' (position {position}) {words}")
        err.as_function = f"{name}(): argument 'split_sizes' (position {position + (not split)}) {words}"
    if not split and not hasattr(err, "as_function"):
        err.as_function = str(argument_error(sizes, "tuple of ints", "split_sizes", name, position + 1))
    return err


def _split_sizes(n, split_size_or_sections, dim=0):
    if isinstance(split_size_or_sections, numbers.Integral):
        s = int(split_size_or_sections)
        if s < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={s}")
        if s == 0 and n != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        if n == 0:
            return [0]
        return [min(s, n - i) for i in range(0, n, s)]
    try:
        sizes = [operator.index(x) for x in split_size_or_sections]
    except TypeError:  # (int() would take a float; torch's parser takes what indexes)
        raise _sizes_error(split_size_or_sections) from None
    if any(z < 0 for z in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={sizes}")
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                           f"dimension {dim}), but got split_sizes={sizes}")
    return sizes


def _split_size_of_tensor(t):
    """A Tensor given as a split's size.  torch's Python ``torch.split``/``Tensor.split`` take ``int(t)`` of a
    one-element tensor, else pass it on as the sizes, which the parser refuses (a tuple of ints, not a Tensor); the
    ATen ops built on split (``split_copy``, ``unsafe_split``) parse it as an int: a one-element integer tensor."""
    op = caller_op()
    if op == "split":
        if t.numel() == 1:
            return int(t)
        raise TypeError("split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not Tensor")
    if t.numel() == 1 and not t.dtype.is_floating_point and not t.dtype.is_complex:
        return int(t)
    raise TypeError(f"{op}(): argument 'split_size' (position 2) must be int, not Tensor")


def _slices(input, d, bounds, node="SliceBackward0"):
    out = []
    for a, b in bounds:
        idx = (("s", None, None, None),) * d + (("s", a, b, 1),)
        out.append(view_step(input, ("index", idx), name=node))
    return tuple(out)


@register(method=False)
def split(tensor, split_size_or_sections, dim=0):
    """Split into chunks of a size, or of the given sizes, along ``dim`` (views; torch's first parameter is
    ``tensor``: ``torch.split(tensor=x, split_size_or_sections=2)``)."""
    if tensor.ndim == 0:
        if type(dim) is not int:
            wrap_dim(dim, 1)  # (torch's parser error first)
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, tensor.ndim)
    if isinstance(split_size_or_sections, Tensor):  # torch's Tensor.split: int() of it, else the sizes it lists
        split_size_or_sections = _split_size_of_tensor(split_size_or_sections)
    sizes = _split_sizes(tensor.shape[d], split_size_or_sections, d)
    starts = np.cumsum([0] + sizes[:-1])
    return _multi_output(tensor, _slices(tensor, d, [(int(s), int(s) + n) for s, n in zip(starts, sizes)],
                                         "SplitBackward0" if isinstance(split_size_or_sections, numbers.Integral)
                                         else "SplitWithSizesBackward0"))


@register("split", namespaces=())
def split_method(self, split_size, dim=0):
    """``Tensor.split``: torch's method names its sizes ``split_size`` (``torch.split``'s name is
    ``split_size_or_sections``); torchsde calls ``flat.split(split_size=numels)``."""
    return split(self, split_size, dim)


split_method.__name__ = split_method.__qualname__ = "split"


@register()
def split_with_sizes(input, split_sizes, dim=0):
    try:
        split_sizes = list(split_sizes)
    except TypeError:  # (not iterable: a float, None)
        raise _sizes_error(split_sizes) from None
    return split(input, split_sizes, dim)


@register()
def chunk(input, chunks, dim=0):
    """Split into ``chunks`` nearly equal pieces (views)."""
    if input.ndim == 0:  # (torch's first check)
        C.reject_types(caller_op(), (dim, "int", "dim", 2))
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        C.reject_types(caller_op(), (dim, "int", "dim", 2))  # (torch's parser looks at dim first)
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if n == 0:  # torch returns `chunks` empty pieces
        return _multi_output(input, _slices(input, d, [(0, 0)] * chunks, "SplitWithSizesBackward0"))
    try:
        return split(input, -(-n // chunks), d)
    except TypeError:  # a float ``chunks`` (a float piece size): torch's parser rejects the chunks first
        C.reject_types(caller_op(), (chunks, "int", "chunks", 1))
        raise


@register()
def tensor_split(input, indices_or_sections, dim=0):
    """numpy.array_split semantics along ``dim`` (views)."""
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.dtype is not _dtype.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{_dtype._CAP[indices_or_sections.dtype.name]}")
        if indices_or_sections.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {indices_or_sections.ndim} dims")
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, numbers.Integral):
        k = int(indices_or_sections)
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        starts = np.cumsum([0] + sizes[:-1])
        bounds = [(int(s), int(s) + z) for s, z in zip(starts, sizes)]
    else:
        idx = [operator.index(i) for i in indices_or_sections]  # (1.5: torch's parser error, from the wrapper)
        edges = [0] + idx + [n]
        bounds = [(min(max(a, 0), n), min(max(b, a, 0), n)) for a, b in zip(edges[:-1], edges[1:])]
    return _slices(input, d, bounds)

