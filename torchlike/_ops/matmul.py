"""Matrix products: matmul/mm/bmm/mv/dot, einsum, tensordot, kron, cross, cdist (the add* family: addmm.py).

torch requires equal dtypes for matrix products (no promotion); float32 products run at HIGHEST
precision so results match torch's CPU kernels closely.

    >>> import torchlike as torch
    >>> (torch.ones(2, 3) @ torch.ones(3)).tolist()
    [3.0, 3.0]
"""
from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._errors import broadcast_shape, caller_op, torch_warn
from .. import _torch_function
from . import checks as C
from ._util import Tensor, cast, check_broadcast, dispatch, register, round_to, wrap_dim
from .registry import out_dtype_message
from .. import _autocast as _amp
from .._dispatch import OTHERS
from .pointwise import mul
from .einsum_parse import check_equation
from .einsum_dtype import einsum_dtype, int_einsum_dtype
from .._mutation import write_out
from .._global_settings import matmul_precision as _mm_prec

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "einsum", "tensordot", "kron", "cross",
           "cdist", "chain_matmul"]


# C++ scalar-type names used in torch's "expected m1 and m2 to have the same dtype" message
_CNAME = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
          "int8": "signed char", "uint8": "unsigned char", "bool": "bool", "float16": "c10::Half",
          "bfloat16": "c10::BFloat16", "complex64": "c10::complex<float>",
          "complex128": "c10::complex<double>"}


def _cap(d):
    return _dtype._CAP[d.name]


_SMALL_INT = (_dtype.int32, _dtype.int16, _dtype.int8, _dtype.uint8)


def _acc(dt):
    """Accumulation dtype for a product in dtype ``dt`` (half types accumulate in float32 like torch)."""
    return np.dtype(np.float32) if dt in (np.float16, _dtype.bfloat16.np) else None


def _mm(a, b):
    pe = _acc(a.dtype)
    r = jnp.matmul(a, b, precision=_mm_prec(), preferred_element_type=pe)
    return r.astype(a.dtype) if pe is not None else r


def _check_tensor(x, name, pos, argname):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{argname}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _check_not_bool(d, kernel="addmm_impl_cpu_"):
    if d is _dtype.bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _same_mm(a, b):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_CNAME.get(a.dtype.name)} != "
                           f"{_CNAME.get(b.dtype.name)}")
    _check_not_bool(a.dtype)


def _same_dot(a, b):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_cap(a.dtype)} and "
                           f"{_cap(b.dtype)}")
    _check_not_bool(a.dtype, "dot")


def _dims_msg(a, b):
    return f"({a[0]}x{a[1]} and {b[0]}x{b[1]})"


# --- matmul ------------------------------------------------------------------------------------
def batched_shape_error(a, b):
    """Raise torch's error for a batched ``matmul`` of shapes ``a @ b`` (``b`` at least 3-D) whose inner
    dims differ: the batch dims are checked first, then both sides, expanded to the broadcast batch and
    flattened, meet bmm's check."""
    check_broadcast(a[:-2], b[:-2])
    n = math.prod(np.broadcast_shapes(tuple(a[:-2]), tuple(b[:-2])))
    raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {a[-1]}] but got: "
                       f"[{n}, {b[-2]}].")


def matmul_shape_error(a, b):
    """Raise torch's error for ``matmul`` of shapes ``a @ b`` (both at least 2-D) whose inner dims differ: a 2-D
    right side meets mm's check with the left side folded, a batched one bmm's (``batched_shape_error``)."""
    if len(b) == 2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied {_dims_msg((math.prod(a[:-1]), a[-1]), b)}")
    batched_shape_error(a, b)


def _matmul_impl(a, b):
    return _mm(a, b)


@register(out=True, namespaces=("torch", "linalg"), out_same_dtype=out_dtype_message("matmul"))
@_amp.lower
def matmul(input, other):
    """Matrix product with torch's 1-D / 2-D / batched broadcasting rules.

    >>> import torchlike as torch
    >>> torch.matmul(torch.ones(5, 2, 3), torch.ones(3, 4)).shape
    torch.Size([5, 2, 4])
    """
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        # the common case first, with the fewest Python checks: 2-D by 2-D or 3-D by 2-D/3-D of one dtype
        # (the arrays' own shapes and dtypes: Tensor.shape builds a Size, Tensor.dtype looks the dtype up)
        xa, xb = input._x, other._x
        a, b = xa.shape, xb.shape
        na, nb = len(a), len(b)
        da = xa.dtype
        if (da is xb.dtype or da == xb.dtype) and da.kind != "b" and 2 <= na <= 3 and 2 <= nb <= na and \
                a[-1] == b[-2] and (nb == 2 or a[0] == b[0]):
            return dispatch(_matmul_impl, (input, other), (), name="MmBackward0" if na == 2 else
                            "UnsafeViewBackward0", saves=OTHERS)
    elif _torch_function.retry_with_overrides((input, other), None):  # a tensor-like (linear_operator's)
        return _torch_function.redispatch("matmul", matmul, (input, other), {})
    _check_tensor(input, "matmul", 1, "input")
    _check_tensor(other, "matmul", 2, "other")
    a, b = input.shape, other.shape
    na, nb = len(a), len(b)
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D")
    if na == 1 and nb == 1:
        return dot(input, other)
    if na == 2 and nb == 1:
        return mv(input, other)
    if na == 1:
        if a[0] != b[-2]:
            if nb > 2:
                batched_shape_error((1, a[0]), b)
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied {_dims_msg((1, a[0]), b[-2:])}")
    elif nb == 1:
        if a[-1] != b[0]:
            raise RuntimeError(f"size mismatch, got input ({math.prod(a[:-1])}), mat ({math.prod(a[:-1])}x{a[-1]}), "
                               f"vec ({b[0]})")
    elif a[-1] != b[-2]:
        matmul_shape_error(a, b)
    elif na > 2 or nb > 2:
        check_broadcast(a[:-2], b[:-2])  # the batch dimensions
    _same_mm(input, other)
    return dispatch(_matmul_impl, (input, other), (), name="MmBackward0" if na == nb == 2 else
                    "UnsafeViewBackward0", saves=OTHERS)


@register("__matmul__", namespaces=(), promote="none")
def _matmul_dunder(self, other):
    """``self @ other``; NotImplemented for a non-tensor (Python then tries ``other.__rmatmul__``) other than a
    tensor-like overriding ``__torch_function__`` (keras's ``Variable``), which matmul hands to its override.
    With the protocol on it goes through the method, which dispatches as ``Tensor.matmul`` (torch binds ``@`` to
    it): the method is a parser wrapper of its own, so ``matmul`` itself does not dispatch."""
    if not _matmul_operand(other):
        return NotImplemented
    return Tensor.matmul(self, other) if _torch_function.enabled() else matmul(self, other)


@register("__rmatmul__", namespaces=(), promote="none")
def _rmatmul_dunder(self, other):
    return matmul(other, self) if _matmul_operand(other) else NotImplemented


def _matmul_operand(other):
    return isinstance(other, Tensor) or _torch_function.overloaded_args((other,)) is not None


@register(out=True, out_same_dtype=out_dtype_message("mm"))
@_amp.lower
def mm(input, mat2):
    """2-D matrix product (no broadcasting).

    >>> import torchlike as torch
    >>> torch.mm(torch.ones(2, 3), torch.ones(3, 4)).shape
    torch.Size([2, 4])
    """
    try:
        if input.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if mat2.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
    except (RuntimeError, AttributeError):  # (torch's parser rejects a non-Tensor mat2 first)
        C.reject_types("mm", (mat2, "Tensor", "mat2", 1))
        raise
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied {_dims_msg(input.shape, mat2.shape)}")
    _same_mm(input, mat2)
    return dispatch(_matmul_impl, (input, mat2), (), name="MmBackward0", saves=OTHERS)


def _check_bmm(b1, b2, n1="batch1", n2="batch2"):
    if b1.ndim != 3:
        raise RuntimeError(f"{n1} must be a 3D tensor")
    if b2.ndim != 3:
        raise RuntimeError(f"{n2} must be a 3D tensor")
    if b2.shape[0] != b1.shape[0] or b2.shape[1] != b1.shape[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b1.shape[0]}, {b1.shape[2]}] but got: [{b2.shape[0]}, {b2.shape[1]}].")
    if b1.dtype is not b2.dtype:
        raise RuntimeError(f"expected scalar type {_cap(b1.dtype)} but found {_cap(b2.dtype)}")
    _check_not_bool(b1.dtype, "bmm")


@register(out=True, out_same_dtype=out_dtype_message("mm"))
@_amp.lower
def bmm(input, mat2):
    """Batched 3-D matrix product.

    >>> import torchlike as torch
    >>> torch.bmm(torch.ones(4, 2, 3), torch.ones(4, 3, 5)).shape
    torch.Size([4, 2, 5])
    """
    try:
        _check_bmm(input, mat2)
    except (RuntimeError, AttributeError):  # (torch's parser rejects a non-Tensor mat2 first)
        C.reject_types("bmm", (mat2, "Tensor", "mat2", 1))
        raise
    return dispatch(_matmul_impl, (input, mat2), (), name="BmmBackward0", saves=OTHERS)


def _mv_check(mat, vec, out_dt=None):
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {mat.ndim}, {vec.ndim}")
    if mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({mat.shape[0]}), mat ({mat.shape[0]}x{mat.shape[1]}), "
                           f"vec ({vec.shape[0]})")
    o = out_dt or vec.dtype
    if not (mat.dtype is vec.dtype is o):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_cap(o)}, {_cap(mat.dtype)}, "
                           f"and {_cap(vec.dtype)}")
    _check_not_bool(mat.dtype, "addmv_impl_cpu")


@register(out=True, out_same_dtype=out_dtype_message("mv"))
def mv(input, vec):
    """Matrix-vector product.

    >>> import torchlike as torch
    >>> torch.mv(torch.ones(2, 3), torch.ones(3)).tolist()
    [3.0, 3.0]
    """
    try:
        if input.ndim == 0:  # (torch's mv reads the matrix's first size before its rank check)
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        _mv_check(input, vec)
    except (RuntimeError, AttributeError, IndexError):  # (torch's parser rejects a non-Tensor vec first)
        C.reject_types("mv", (vec, "Tensor", "vec", 1))
        raise
    return dispatch(_matmul_impl, (input, vec), (), name="MvBackward0", saves=OTHERS)


def _dot_check(a, b, name="dot"):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    _same_dot(a, b)
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
                           f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements "
                           "respectively")


def _dot_impl(a, b):
    if a.dtype == np.bool_:
        return jnp.any(a & b)
    pe = _acc(a.dtype)
    r = jnp.dot(a, b, precision=_mm_prec(), preferred_element_type=pe)
    return r.astype(a.dtype) if pe is not None else r


@register(out=True, out_same_dtype=out_dtype_message("dot"))
def dot(input, tensor):
    """Dot product of two 1-D tensors of the same dtype.

    >>> import torchlike as torch
    >>> torch.dot(torch.tensor([1, 2]), torch.tensor([3, 4])).item()
    11
    """
    try:
        _dot_check(input, tensor)
    except (RuntimeError, AttributeError):  # (torch's parser rejects a non-Tensor tensor first)
        C.reject_types("dot", (tensor, "Tensor", "tensor", 1))
        raise
    return dispatch(_dot_impl, (input, tensor), (), name="DotBackward0", saves=OTHERS)


def _vdot_impl(a, b):
    return _dot_impl(jnp.conj(a), b)


@register(out=True, out_same_dtype=out_dtype_message("dot"))
def vdot(input, other):
    """Dot product conjugating the first argument.

    >>> import torchlike as torch
    >>> torch.vdot(torch.tensor([1j]), torch.tensor([1j])).item()
    (1+0j)
    """
    try:
        _dot_check(input, other, "vdot")
    except (RuntimeError, AttributeError):
        C.reject_types("vdot", (other, "Tensor", "other", 1))
        raise
    return dispatch(_vdot_impl, (input, other), (), name="VdotBackward0", saves=OTHERS)


def _inner_impl(a, b):
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return jnp.tensordot(a, b, axes=((a.ndim - 1,), (b.ndim - 1,)), precision=_mm_prec())


@register(out=True)
@_amp.lower_if(lambda input, other, **k: input.ndim and other.ndim and input.ndim + other.ndim > 2)  # 1-D: a dot
def inner(input, other):
    """Inner product over the last dims (torch.inner).

    >>> import torchlike as torch
    >>> torch.inner(torch.ones(2, 3), torch.ones(4, 3)).shape
    torch.Size([2, 4])
    """
    if input.ndim == 0 or other.ndim == 0:
        return mul(input, other)
    if input.dtype is _dtype.bool and other.dtype is _dtype.bool:  # torch's dot / addmm kernels
        _check_not_bool(input.dtype, "dot" if input.ndim == other.ndim == 1 else "addmm_impl_cpu_")
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    if input.dtype is not other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    return dispatch(_inner_impl, (input, other), (), name="InnerBackward0", saves=OTHERS)


def _outer_impl(a, b, dt):
    return jnp.outer(cast(a, dt), cast(b, dt)) if dt != np.bool_ else jnp.outer(a, b).astype(bool)


@register(out=True, aliases=("ger",), out_overlap="partial")
def outer(input, vec2):
    """Outer product of two 1-D tensors (with type promotion).

    >>> import torchlike as torch
    >>> torch.outer(torch.arange(2), torch.arange(3)).shape
    torch.Size([2, 3])
    """
    try:
        if input.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.ndim}-D")
        if vec2.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    except (RuntimeError, AttributeError):  # (torch's parser rejects a non-Tensor vec2 first; ger: its own name)
        C.reject_types(caller_op(), (vec2, "Tensor", "vec2", 1))
        raise
    dt = _dtype.result_type(input, vec2)
    return dispatch(_outer_impl, (input, vec2), (("dt", dt.np),), name="MulBackward0", saves=OTHERS)


# --- einsum / tensordot ------------------------------------------------------------------------
def _einsum_impl(*ops, eq, odt=None):
    if odt is not None:  # an integer einsum torch computes in int64 (its per-operand sums promote)
        ops = [o.astype(odt) for o in ops]
    pe = _acc(ops[0].dtype)
    r = jnp.einsum(eq, *ops, precision=_mm_prec(), preferred_element_type=pe)
    odt = ops[0].dtype
    return r.astype(odt) if r.dtype != odt else r


def _sublist_to_eq(args):
    """einsum(op0, [0, 1], op1, [1, 2], [0, 2]) -> ('ab,bc->ac', [op0, op1])."""
    def letters(sub):
        return "".join("..." if s is Ellipsis else
                       (chr(ord("a") + s) if s < 26 else chr(ord("A") + s - 26)) for s in sub)
    ops, subs = list(args[0::2]), list(args[1::2])
    out = None
    if len(ops) > len(subs):  # trailing output sublist
        out = ops.pop()
    eq = ",".join(letters(s) for s in subs)
    if out is not None:
        eq += "->" + letters(out)
    return eq, ops


def _einsum_contracts(*args):
    """torch autocasts einsum only when it runs as a batched matmul: two+ operands and a summed index."""
    if not args or not isinstance(args[0], str):
        return len(args) >= 4
    ops = args[1:]
    if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
        ops = ops[0]
    if len(ops) < 2:
        return False
    eq = args[0].replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    ins = set(lhs.replace(",", "").replace(".", ""))
    if "->" not in eq:
        flat = lhs.replace(",", "").replace(".", "")
        rhs = "".join(c for c in ins if flat.count(c) == 1)
    return bool(ins - set(rhs))



def _einsum_flat(args):
    """``einsum(eq, [a, b])`` as ``einsum(eq, a, b)``: torch.functional.einsum's recursion for the list form."""
    if len(args) == 2 and isinstance(args[0], str) and isinstance(args[1], (list, tuple)):
        return (args[0], *args[1])
    return args


_torch_function.register_argument_form("torch.einsum", _einsum_flat)

@register(method=False)
@_amp.lower_if(_einsum_contracts)
def einsum(*args):
    """Einstein summation: ``einsum(eq, *operands)``, ``einsum(eq, [operands])`` or sublist format.

    >>> import torchlike as torch
    >>> torch.einsum('ij,jk->ik', torch.ones(2, 3), torch.ones(3, 4)).shape
    torch.Size([2, 4])
    """
    if len(args) < 2:  # (torch's Python: a ValueError)
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if isinstance(args[0], str):
        eq = args[0]
        ops = list(args[1][0:]) if len(args) == 2 and isinstance(args[1], (list, tuple)) else list(args[1:])
    else:
        eq, ops = _sublist_to_eq(args)
    if not ops:  # (torch's Python: einsum(eq) and einsum(eq, []) have fewer than two arguments)
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    check_equation(eq, [op.shape for op in ops])
    eq = eq.replace(" ", "")
    lhs = eq.split("->")[0].split(",")
    sizes = {}
    mixed = any(op.dtype is not ops[0].dtype for op in ops)
    for i, (sub, op) in enumerate(zip(lhs, ops)):
        labels = sub.replace("...", "")
        nell = op.ndim - len(labels)
        if nell < 0 or (nell > 0 and "..." not in sub):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(labels)}) does not match "
                               f"the number of dimensions ({op.ndim}) for operand {i}"
                               + ("" if "..." in sub else " and no ellipsis was given"))
        shp = list(op.shape)
        pre = sub.split("...")[0] if "..." in sub else sub
        dims = list(range(len(pre))) + list(range(op.ndim - (len(labels) - len(pre)), op.ndim))
        for c, d in zip(labels, dims):
            s = shp[d]
            if c in sizes and sizes[c] != s and 1 not in (s, sizes[c]):
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {i} which does not broadcast "
                                   f"with previously seen size {sizes[c]}")
            if c not in sizes or sizes[c] == 1:
                sizes[c] = s
    if mixed:  # (torch multiplies a pair with no contracted label, promoting; bmm refuses two types)
        odt = einsum_dtype(eq, [o.ndim for o in ops], [o.dtype for o in ops], _dtype.int64, _SMALL_INT,
                           _dtype.promote_types, _cap)
        return dispatch(_einsum_impl, tuple(ops), (("eq", eq), ("odt", odt.np.name)), name="EinsumBackward", saves=OTHERS)
    _check_not_bool(ops[0].dtype, "einsum")
    if ops[0].dtype in _SMALL_INT:  # torch's per-operand sums promote these to int64
        odt = int_einsum_dtype(eq, [o.ndim for o in ops], ops[0].dtype, _dtype.int64, _cap)
        if odt is not ops[0].dtype:
            return dispatch(_einsum_impl, tuple(ops), (("eq", eq), ("odt", odt.np.name)), name="EinsumBackward", saves=OTHERS)
    return dispatch(_einsum_impl, tuple(ops), (("eq", eq),), name="EinsumBackward", saves=OTHERS)


def _tensordot_impl(a, b, axes, shapes=None):
    if shapes is not None:   # size-1 contracted dims broadcast against the other operand's
        a, b = jnp.broadcast_to(a, shapes[0]), jnp.broadcast_to(b, shapes[1])
    return jnp.tensordot(a, b, axes=axes, precision=_mm_prec())


def _tensordot_mm(a, b, dims=2, *args, **kwargs):
    """Autocast: torch's tensordot is an mm (lower precision) unless it contracts every dim (a dot, float32)."""
    try:
        n = len(dims[0]) if isinstance(dims, (list, tuple)) else int(dims)
    except (TypeError, ValueError):
        return True
    return not (n == a.ndim == b.ndim)


@register(method=False, out=True)
@_amp.lower_if(_tensordot_mm)
def tensordot(a, b, dims=2, out=None):
    """Contract ``dims`` (an int, or a pair of dim lists) of ``a`` and ``b``.

    >>> import torchlike as torch
    >>> torch.tensordot(torch.ones(2, 3, 4), torch.ones(3, 4, 5), dims=2).shape
    torch.Size([2, 5])
    """
    if not isinstance(dims, (tuple, list, Tensor, int, np.integer)):  # (torch's Python checks as it goes)
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da = list(range(a.ndim - dims, a.ndim))
        db = list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    da_w = tuple(wrap_dim(d, a.ndim) for d in da)
    db_w = tuple(wrap_dim(d, b.ndim) for d in db)
    sa, sb = list(a.shape), list(b.shape)
    for x, y, x0, y0 in zip(da_w, db_w, da, db):
        if sa[x] == 1 or sb[y] == 1:   # torch broadcasts a size-1 contracted dim
            sa[x] = sb[y] = max(sa[x], sb[y])
        elif a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[x]} in dim "
                               f"{x0 if not isinstance(dims, int) else x - a.ndim} and second has size "
                               f"{b.shape[y]} in dim {y0}")
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    shapes = None if (sa, sb) == (list(a.shape), list(b.shape)) else (tuple(sa), tuple(sb))
    return dispatch(_tensordot_impl, (a, b), (("axes", (da_w, db_w)), ("shapes", shapes)), name="TensordotBackward", saves=OTHERS)


# --- kron, cross, chain_matmul ----------------------------------------------------------
def _kron_impl(a, b, dt):
    if dt == np.bool_:  # torch: a logical and of the blocks (XLA multiplies no bools)
        return jnp.kron(a.astype(np.uint8), b.astype(np.uint8)).astype(np.bool_)
    return jnp.kron(cast(a, dt), cast(b, dt))


@register(out=True, checks=(C.tensors_only,), out_overlap="partial")
def kron(input, other):
    """Kronecker product (with type promotion).

    >>> import torchlike as torch
    >>> torch.kron(torch.eye(2), torch.ones(2, 2)).shape
    torch.Size([4, 4])
    """
    # (torch multiplies views of both with as many dims as the larger: a 0-d operand's type counts in full)
    dt = _dtype.result_type(input, other) if input.ndim == other.ndim == 0 else \
        _dtype.promote_types(input.dtype, other.dtype)
    return dispatch(_kron_impl, (input, other), (("dt", dt.np),), name="KronBackward0", saves=OTHERS)


def _cross_impl(a, b, dim):
    a, b = jnp.broadcast_arrays(a, b)
    dt = a.dtype
    half = dt in (jnp.float16, jnp.bfloat16)
    if half:  # torch's kernel multiplies in the type: each product is stored in it before the difference
        a, b = a.astype(jnp.float32), b.astype(jnp.float32)
    a0, a1, a2 = (jnp.take(a, i, axis=dim) for i in range(3))
    b0, b1, b2 = (jnp.take(b, i, axis=dim) for i in range(3))
    m = (lambda x, y: round_to(x * y, dt)) if half else (lambda x, y: x * y)
    return jnp.stack([m(a1, b2) - m(a2, b1), m(a2, b0) - m(a0, b2), m(a0, b1) - m(a1, b0)], axis=dim).astype(dt)


def _cross(input, other, dim, linalg):
    if dim is not None and type(dim) is not int and not isinstance(dim, Tensor):
        wrap_dim(dim, 1)  # (a tuple: torch's parser error, before the operands' sizes are read)
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions." if linalg else
                           "linalg.cross: inputs must have the same number of dimensions.")
    try:
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    except ValueError:
        raise RuntimeError("linalg.cross: inputs cannot be broadcast") from None
    if dim is None:
        ds = [i for i, s in enumerate(shape) if s == 3]
        torch_warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the "
                   "dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to "
                   "agree with that of linalg.cross in a future release.", "aten/src/ATen/native/Cross.cpp:63",
                   once=True)
        if not ds:  # (after the warning, as torch)
            raise RuntimeError("no dimension of size 3 in input")
        d = ds[0]
    else:
        d = wrap_dim(dim, len(shape))
        if input.shape[d] != 3 or other.shape[d] != 3:
            raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                               f"{other.shape[d]}")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {_cap(input.dtype)} but found {_cap(other.dtype)}")
    return dispatch(_cross_impl, (input, other), (("dim", d),), name="LinalgCrossBackward0")


@register(out=True, out_overlap="any")
def cross(input, other, dim=None):
    """Cross product along ``dim`` (default: the first dim of size 3, deprecated).

    >>> import torchlike as torch
    >>> torch.cross(torch.tensor([1., 0, 0]), torch.tensor([0., 1, 0]), dim=0).tolist()
    [0.0, 0.0, 1.0]
    """
    return _cross(input, other, dim, False)


def linalg_cross(input, other, *, dim=-1):
    """torch.linalg.cross: cross product along ``dim`` (default -1), broadcasting.

    >>> import torchlike as torch
    >>> torch.linalg.cross(torch.eye(3), torch.eye(3)).abs().sum().item()
    0.0
    """
    return _cross(input, other, dim, True)


linalg_cross.__name__ = "cross"
linalg_cross = register("cross", namespaces=("linalg",), method=False, out=True, out_overlap="any")(linalg_cross)  # differs from torch.cross


def _multi_dot_impl(*xs):
    return jnp.linalg.multi_dot(xs, precision=_mm_prec())


# the C++ type names torch's TypeMeta gives (its multi_dot dtype message)
_TYPE_META = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _type_meta(d):
    return _TYPE_META.get(d.name, _cap(d))


def _multi_dot(tensors, name):
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"{name}(): expected at least 2 tensors but got {n}")
    for i, t in enumerate(tensors):
        lim_ok = t.ndim == 2 or (t.ndim == 1 and i in (0, n - 1) and name == "multi_dot")
        if not lim_ok:
            if i in (0, n - 1) and name == "multi_dot":
                raise RuntimeError(f"{name}(): the {'first' if i == 0 else 'last'} tensor must be 1D or 2D but "
                                   f"got {t.ndim}D")
            raise RuntimeError(f"{name}(): tensor {i} must be 2D but got {t.ndim}D")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError(f"{name}(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_type_meta(tensors[0].dtype)} and tensor {i} {_type_meta(t.dtype)}")
    for i in range(n - 1):
        a, b = tensors[i], tensors[i + 1]
        if a.shape[-1] != b.shape[0]:
            raise RuntimeError(f"{name}(): tensors {i} and {i + 1} with shapes {list(a.shape)} and "
                               f"{list(b.shape)} cannot be multiplied")
    return dispatch(_multi_dot_impl, tuple(tensors), (), name="MmBackward0", saves=OTHERS)


@register(method=False)
@_amp.lower
def chain_matmul(*matrices, out=None):
    """Product of 2-D matrices (deprecated: use linalg.multi_dot).

    >>> import torchlike as torch
    >>> torch.chain_matmul(torch.ones(2, 3), torch.ones(3, 4)).shape
    torch.Size([2, 4])
    """
    torch_warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
               "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
               "parameters.", "aten/src/ATen/native/LinearAlgebra.cpp:1102", once=True)
    for t in matrices:  # (torch's checkAllSameDim, then linalg_multi_dot with its words)
        if isinstance(t, Tensor) and t.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t.ndim}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        return matrices[0].clone()
    r = _multi_dot(list(matrices), "multi_dot")
    if out is not None:
        return write_out(out, r, "mm")
    return r


@register(method=False, namespaces=("linalg",), out=True)
@_amp.lower
def multi_dot(tensors):
    """Product of a chain of matrices (first/last may be 1-D), in the cheapest order.

    >>> import torchlike as torch
    >>> torch.linalg.multi_dot([torch.ones(3), torch.ones(3, 4), torch.ones(4)]).item()
    12.0
    """
    return _multi_dot(list(tensors), "multi_dot")


def _vecdot_impl(x, y, dim):
    return jnp.sum(jnp.conj(x) * y, axis=dim)


@register(method=False, namespaces=("linalg",), out=True)
@_amp.lower
def vecdot(x, y, *, dim=-1):
    """Batched conjugated dot product along ``dim``.

    >>> import torchlike as torch
    >>> torch.linalg.vecdot(torch.ones(2, 3), torch.ones(3)).tolist()
    [3.0, 3.0]
    """
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_cap(x.dtype)} and y of type {_cap(y.dtype)} instead")
    if x.ndim == 1 and y.ndim == 1 and x.shape[0] != y.shape[0]:  # (torch's vecdot of vectors is a dot)
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src [{y.shape[0]}] to have "
                           f"the same number of elements, but got {x.shape[0]} and {y.shape[0]} elements respectively")
    shape = broadcast_shape(tuple(x.shape), tuple(y.shape))
    d = wrap_dim(dim, len(shape)) - len(shape)
    return dispatch(_vecdot_impl, (x, y), (("dim", d),), name="LinalgVecdotBackward0")


# --- cdist -------------------------------------------------------------------------------------
def _cdist_impl(x1, x2, p, kind):
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    a = jnp.abs(diff)
    if kind == "zero":
        return jnp.sum((a != 0).astype(x1.dtype), axis=-1)
    if kind == "inf":
        return jnp.max(a, axis=-1) if a.shape[-1] else jnp.zeros(a.shape[:-1], x1.dtype)
    if kind == "one":
        return jnp.sum(a, axis=-1)
    # safe power: gradient 0 where the distance is 0 (torch's convention)
    s = jnp.sum(a * a, axis=-1) if kind == "two" else jnp.sum(a ** p, axis=-1)
    nz = s > 0
    s_safe = jnp.where(nz, s, 1)
    r = jnp.sqrt(s_safe) if kind == "two" else s_safe ** (1 / p)
    return jnp.where(nz, r, 0)


@register(method=False)
@_amp.fp32
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Batched pairwise p-norm distances between the rows of ``x1`` and ``x2``.

    >>> import torchlike as torch
    >>> torch.cdist(torch.zeros(2, 3), torch.ones(4, 3)).shape
    torch.Size([2, 4])
    """
    if x1.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                           f"{x2.shape[-1]}")
    if not x1.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {_cap(x1.dtype)}")
    if not x2.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: {_cap(x2.dtype)}")
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected scalar type {_cap(x1.dtype)} but found {_cap(x2.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    kind = {0: "zero", 1: "one", 2: "two"}.get(p, "inf" if p == math.inf else "p")
    bs = broadcast_shape(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    if tuple(x1.shape[:-2]) != bs:
        x1 = x1.expand(bs + tuple(x1.shape[-2:]))
    if tuple(x2.shape[:-2]) != bs:
        x2 = x2.expand(bs + tuple(x2.shape[-2:]))
    return dispatch(_cdist_impl, (x1, x2, float(p)), (("kind", kind),), name="CdistBackward0")


__all__ += ["multi_dot", "vecdot", "linalg_cross"]
