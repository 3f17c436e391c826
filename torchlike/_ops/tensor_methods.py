"""``torch.Tensor`` methods and attributes that have no ``torch.X`` function: Python-callable maps
(``apply_``, ``map_``), device predicates (``is_xpu``, ...), layout queries (``dim_order``), autograd
bookkeeping (``output_nr``), the removed pre-1.9 linear algebra (they raise torch's messages) and the
methods torchlike cannot provide (they raise NotImplementedError naming themselves).

>>> import torchlike
>>> x = torchlike.tensor([1.0, 2.0])
>>> x.apply_(lambda v: v * 10)
tensor([10., 20.])
>>> x.is_same_size(torchlike.zeros(2)), x.t().dim_order()
(True, (0,))
"""
from __future__ import annotations

import functools
import operator
import warnings

import numpy as np

from .. import _dtype
from . import checks as C
from .._grad_mode import InferenceVersion
from .._tensor_devices import device_move_error
from .._missing import MissingAPI
from .signatures import missing_method
from ._util import Tensor, register
from .._errors import warn_at_caller
from .._tensor_messages import NON_LEAF_GRAD
from ..tensor import ANY_GRAD_DTYPE
from .. import _creation
from .._creation import tensor
from .basic import copy_

__all__ = []

_REMOVED = "This function was deprecated since version 1.9 and is now removed. "
_EIG = (_REMOVED + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real "
        "tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
        "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
        "L_complex, V_complex = torch.linalg.eig(A)")
_SYMEIG = (_REMOVED + "The default behavior has changed from using the upper triangular portion of the matrix by "
           "default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be "
           "replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = "
           "torch.symeig(A, eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if "
           "upper else 'L')")
_LSTSQ = (_REMOVED + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has "
          "reversed arguments and does not return the QR decomposition in the returned tuple (although it returns "
          "other information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`."
          "\n\nThe returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n "
          "columns of the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field "
          "'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = "
          "torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution")
_SOLVE = (_REMOVED + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its "
          "arguments reversed and does not return the LU factorization.\n\nTo get the LU factorization see "
          "`torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A)."
          "solution should be replaced with:\nX = torch.linalg.solve(A, B)")
_REINFORCE = ("reinforce() was removed.\nUse torch.distributions instead.\nSee "
              "https://pytorch.org/docs/main/distributions.html\n\nInstead of:\n\nprobs = policy_network(state)\n"
              "action = probs.multinomial()\nnext_state, reward = env.step(action)\naction.reinforce(reward)\n"
              "action.backward()\n\nUse:\n\nprobs = policy_network(state)\n# NOTE: categorical is equivalent to "
              "what used to be called multinomial\nm = torch.distributions.Categorical(probs)\naction = m.sample()\n"
              "next_state, reward = env.step(action)\nloss = -m.log_prob(action) * reward\nloss.backward()\n")


# the removed methods, with the signatures of torch/_tensor.py (so Python's arity and keyword errors are torch's)
def _eig(self, eigenvectors=False):
    raise RuntimeError(_EIG)


def _symeig(self, eigenvectors=False):
    raise RuntimeError(_SYMEIG)


def _lstsq(self, other):
    raise RuntimeError(_LSTSQ)


def _solve(self, other):
    raise RuntimeError(_SOLVE)


def _reinforce(self, reward):
    raise RuntimeError(_REINFORCE)


for _f in (_eig, _symeig, _lstsq, _solve, _reinforce):
    _f.__name__, _f.__qualname__ = _f.__name__[1:], "Tensor." + _f.__name__[1:]
    _f.__code__ = _f.__code__.replace(co_name=_f.__name__, co_qualname=_f.__qualname__)  # (Python's errors read it)


def _python_map(self, fn, others):
    """In-place ``self[i] = fn(self[i], *others[i])`` with Python scalars (torch: CPU tensors only)."""
    if self.requires_grad and self.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    a = np.array(np.asarray(self.detach()._value))
    bs = [np.broadcast_to(np.asarray(o.detach()._value), a.shape) for o in others]
    flat = a.reshape(-1)
    fb = [b.reshape(-1) for b in bs]
    cast = bool if self.dtype is _dtype.bool else (complex if self.dtype.is_complex else
                                                   float if self.dtype.is_floating_point else int)
    for i in range(flat.size):
        flat[i] = fn(cast(flat[i]), *(cast(b[i]) for b in fb))
    copy_(self, tensor(a, dtype=self.dtype))
    return self


def apply_(self, callable):
    """Apply a Python function to every element in place (slow; CPU only, as in torch)."""
    return _python_map(self, callable, ())


def map_(self, tensor, callable):
    """``self[i] = callable(self[i], tensor[i])`` in place, ``tensor`` broadcast to self."""
    return _python_map(self, callable, (tensor,))


def map2_(self, x, y, callable):
    """``self[i] = callable(self[i], x[i], y[i])`` in place."""
    return _python_map(self, callable, (x, y))


def dim_order(self, *, ambiguity_check=False):
    """Dims from outermost to innermost in memory (row-major here: stride order)."""
    st = self.stride()
    return tuple(sorted(range(self.ndim), key=lambda d: (-st[d], d)))


# metadata queries torch declares as ops (native_functions.yaml): table entries like any other
@register(promote="none", differentiable=False)
def is_same_size(input, other):
    """Whether ``input`` and ``other`` have the same shape.

    >>> import torchlike
    >>> torchlike.is_same_size(torchlike.ones(2, 3), torchlike.zeros(2, 3))
    True
    """
    try:
        shape = other.shape
    except AttributeError:  # (torch's parser: a Tensor)
        C.reject_types("is_same_size", (other, "Tensor", "other", 1))
        raise
    return tuple(input.shape) == tuple(shape)


@register(promote="none", differentiable=False)
def is_distributed(input):
    """False, as torch answers for every ordinary (non-legacy-distributed) tensor.

    >>> import torchlike
    >>> torchlike.ones(2).is_distributed()
    False
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"is_distributed(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return False


@register(promote="none", differentiable=False)
def is_inference(input):
    """Whether ``input`` was made in inference mode (or is a view of such a tensor).

    >>> import torchlike
    >>> with torchlike.inference_mode():
    ...     t = torchlike.ones(2)
    >>> torchlike.is_inference(t), torchlike.is_inference(t.clone())
    (True, False)
    """
    return type(input._ver) is InferenceVersion


@register(namespaces=(), promote="none", differentiable=False)
def const_data_ptr(self):
    """``data_ptr()`` (torch's read-only view of the same address)."""
    return self.data_ptr()


@register(namespaces=(), promote="none", differentiable=False)
def is_set_to(self, tensor):
    """True when both tensors view the same memory with the same size, stride and offset."""
    root = self._vbase if self._vbase is not None else self
    oroot = tensor._vbase if tensor._vbase is not None else tensor
    return (root is oroot and tuple(self.shape) == tuple(tensor.shape) and self.stride() == tensor.stride()
            and self.storage_offset() == tensor.storage_offset())


def module_load(self, other, assign=False):
    """How ``load_state_dict`` turns ``other`` into this parameter's value: ``other.detach()`` when
    ``assign``, else a copy into ``self``."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()


def _resized(self, sizes):
    """torch's autograd Resize (torch/autograd/_functions): the same number of elements only, as a contiguous view
    of ``self`` (its storage where ``self`` is contiguous); ``sizes`` as given, multiplied out as Python does."""
    numel = functools.reduce(operator.mul, sizes, 1)
    if self.numel() != numel:
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but the "
                           f"given tensor has a size of {'x'.join(map(str, self.size()))} ({self.numel()} elements). "
                           "autograd's resize can only change the shape of a given tensor, while preserving the "
                           "number of elements. ")
    return self.contiguous().view(*sizes)


def resize(self, *sizes):
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    return _resized(self, sizes)


def resize_as(self, tensor):
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
    return _resized(self, tensor.size())


def _volatile(self):
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


_NO_MTIA = ("Torch not compiled with MTIA enabled. Ensure you have `import mtia.host_runtime.torch_mtia.dynamic_library` "
            "in your python src file and include `//mtia/host_runtime/torch_mtia:torch_mtia` as your target "
            "dependency!")


def _unsupported_device(kind, exc=AssertionError, msg=None):
    def f(self, *args, **kwargs):  # (torch's parser first: a wrong-typed argument, a bad device string)
        raise device_move_error(kind.lower(), self, args, kwargs) or exc(msg or f"Torch not compiled with {kind} "
                                                                           "enabled")
    f.__name__ = kind.lower()
    return f


def _missing(name):
    """The method ``name`` torchlike lacks: torch's parser error for arguments its signatures reject, else
    NotImplementedError naming it."""
    return missing_method(name, lambda: MissingAPI(f"Tensor.{name} is not implemented in torchlike (see "
                                                   "docs/differences.md)"), _MISSING_SIGNATURES.get(name, ()))


# torch's signatures of the methods torchlike lacks
_MISSING_SIGNATURES = {
    "set_": ["Tensor self", "Tensor self, Storage source",
             "Tensor self, Storage source, int storage_offset, int[] size, int[] stride=None", "Tensor self, Tensor source",
             "Tensor self, Tensor source, int storage_offset, int[] size, int[] stride=None"],
    "to_mkldnn": ["Tensor self, ScalarType? dtype=None"],
    "to_padded_tensor": ["Tensor self, float padding, int[]? output_size=None"],
    "slice_inverse": ["Tensor self, Tensor src, int dim=0, int? start=None, int? end=None, int step=1"],
}


# (torch's are Python methods of Tensor: Python's own arity errors name them Tensor.resize)
for _f in (resize, resize_as, module_load):
    _f.__qualname__ = f"Tensor.{_f.__name__}"
    _f.__code__ = _f.__code__.replace(co_qualname=_f.__qualname__)

# ops: declared in the op table (Tensor methods only; torch.adjoint is a function too)
for _f in (apply_, map_, map2_, resize, resize_as):
    register(_f.__name__, namespaces=(), promote="none")(_f)
# the factory methods (t.new_zeros(...): a tensor of t's dtype and device), written in _creation
for _name in ("new", "new_tensor", "new_zeros", "new_ones", "new_empty", "new_full", "new_empty_strided"):
    register(_name, namespaces=(), promote="none")(getattr(_creation, "_" + _name))
del _name


@register(promote="none")
def adjoint(input):
    """The conjugate transpose of the last two dims (a view), as ``input.mH``.

    >>> import torchlike
    >>> torchlike.adjoint(torchlike.tensor([[1 + 2j, 3j]])).tolist()
    [[(1-2j)], [-3j]]
    """
    return input.mH


# not ops (metadata, removed or unsupported APIs that raise torch's message): attached here
# (tests/test_structure_table.py's allowlist)
for _k, _v in {"dim_order": dim_order, "module_load": module_load,
               "eig": _eig, "symeig": _symeig, "lstsq": _lstsq, "solve": _solve, "reinforce": _reinforce,
               "xpu": _unsupported_device("XPU"), "mtia": _unsupported_device("MTIA", msg=_NO_MTIA),
               "ipu": _unsupported_device("IPU", RuntimeError, "PyTorch is not linked with support for ipu devices"),
               }.items():
    if _k not in Tensor.__dict__:
        setattr(Tensor, _k, _v)

for _k in ("is_xpu", "is_mps", "is_vulkan", "is_xla", "is_ipu", "is_maia", "is_mtia"):
    if _k not in Tensor.__dict__:
        setattr(Tensor, _k, property(lambda self: False))

_PROPS = {"volatile": _volatile, "output_nr": lambda self: self._oi if self._grad_fn is not None else 0,
          "name": lambda self: None}
for _k, _v in _PROPS.items():
    if _k not in Tensor.__dict__:
        setattr(Tensor, _k, property(_v))


def _get_grad_dtype(self):
    if self._grad_fn is not None:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    g = self._gdt
    return self.dtype if g is None else None if g is ANY_GRAD_DTYPE else g


def _set_grad_dtype(self, value):
    """torch 2.13's ``grad_dtype``: the dtype a leaf's gradient must have (default its own; None: any), and the
    dtype backward accumulates it in."""
    if self._grad_fn is not None:
        warn_at_caller(NON_LEAF_GRAD)  # (torch's setter reads .grad first)
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    if value is not None and not isinstance(value, _dtype.dtype):
        raise RuntimeError(f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}")
    g = self._grad
    if value is not None and g is not None and g.dtype is not value:
        raise RuntimeError(f"Cannot set grad_dtype to '{_dtype.TYPE_NAMES.get(value.name, value.name)}' because there "
                           f"is already a gradient with dtype '{_dtype.C_NAMES.get(g.dtype.name, g.dtype.name)}'. "
                           "Please clear the gradient (.grad = None) before changing grad_dtype, or ensure the new "
                           "grad_dtype matches the existing gradient's dtype.")
    self._gdt = ANY_GRAD_DTYPE if value is None else None if value is self.dtype else value


Tensor.grad_dtype = property(_get_grad_dtype, _set_grad_dtype)

# methods torchlike does not provide (yet): present, raising NotImplementedError that names them
for _k in ("set_", "to_mkldnn", "to_padded_tensor", "slice_inverse"):
    if _k not in Tensor.__dict__:
        setattr(Tensor, _k, _missing(_k))


def _index(self, positions, dims):
    """torch's Tensor.index (a Python method taking ``positions`` and ``dims``): Python's own errors for a call
    that does not fit it, as torch's."""
    raise MissingAPI("Tensor.index is not implemented in torchlike (see docs/differences.md)")


_index.__name__, _index.__qualname__ = "index", "Tensor.index"
_index.__code__ = _index.__code__.replace(co_name="index", co_qualname="Tensor.index")
if "index" not in Tensor.__dict__:
    Tensor.index = _index
del _k, _v


# the sparse accessors on a strided tensor (torch/sparse/_tensor.py's SparseTensor overrides them): the layout
# checks' RuntimeErrors, and a strided tensor's sparse_dim 0 / dense_dim ndim
def _sparse_accessor(name, kind):
    def accessor(self):
        raise RuntimeError(f"{name} expected sparse {kind} layout but got Strided")
    accessor.__name__ = accessor.__qualname__ = name
    accessor.__code__ = accessor.__code__.replace(co_name=name, co_qualname=name)  # (Python's argument errors)
    accessor.__doc__ = f"torch's layout error: ``{name}`` needs a {kind} layout."
    return accessor


for _k, _kind in {"coalesce": "coordinate tensor", "indices": "coordinate tensor", "values": "tensor",
                  "is_coalesced": "coordinate tensor", "crow_indices": "row compressed tensor",
                  "col_indices": "row compressed tensor", "ccol_indices": "column compressed tensor",
                  "row_indices": "column compressed tensor"}.items():
    register(_k, namespaces=(), promote="none")(_sparse_accessor(_k, _kind))


@register(namespaces=(), promote="none")
def sparse_dim(input):
    """The number of sparse dimensions: 0 for a strided tensor.

    >>> import torchlike
    >>> torchlike.ones(2, 3).sparse_dim(), torchlike.ones(2, 3).dense_dim()
    (0, 2)
    """
    return 0


@register(namespaces=(), promote="none")
def dense_dim(input):
    """The number of dense dimensions: all of a strided tensor's."""
    return input.ndim
