"""The Tensor's dtype shorthands: ``float()``, ``double()``, ... ``cdouble()``, ``type()`` and ``type_as()``, and
its Python-number conversions ``float(t)``, ``int(t)``, ``complex(t)``.

Each is ``self.to(<dtype>)``.  They live in a mixin that ``Tensor`` inherits from (layer 1, like
``tensor.py``: it imports only layer 0), so ``t.float`` is an ordinary class attribute lookup.

    >>> import torchlike as torch
    >>> t = torch.tensor([1, 2])
    >>> t.float().dtype, t.double().dtype, t.type()
    (torch.float32, torch.float64, 'torch.LongTensor')
    >>> t.type(torch.Tensor).dtype, t.type("torch.DoubleTensor").dtype
    (torch.float32, torch.float64)
"""
from __future__ import annotations

from . import _dtype, _grad_mode, _layout
from ._device import _gpus
from ._errors import argument_error, as_tensor_methods, no_other_keywords, torch_warn

__all__ = ["TensorCasts"]

_LEGACY_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                 "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
                 "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor",
                 "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor"}

# x.type("torch.cuda.FloatTensor") on a machine without a GPU: a CPU build of torch's RuntimeError
_NO_ATEN_CUDA = ("Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two shared "
                 "libraries: a CPU library and a CUDA library; this error has occurred because you are trying to "
                 "use some CUDA functionality, but the CUDA library has not been loaded by the dynamic linker for "
                 "some reason.  The CUDA library MUST be loaded, EVEN IF you don't directly use any symbols from "
                 "the CUDA library! One common culprit is a lack of -Wl,--no-as-needed in your link arguments; "
                 "many dynamic linkers will delete dynamic library dependencies if you don't depend on any of "
                 "their symbols.  You can check if this has occurred by using ldd on your binary to see if there "
                 "is a dependency on *_cuda.so library.")

# torch.FloatTensor & co. (their classes are built in _legacy.py, a layer above)
LEGACY = {"FloatTensor": _dtype.float32, "DoubleTensor": _dtype.float64, "HalfTensor": _dtype.float16,
          "BFloat16Tensor": _dtype.bfloat16, "LongTensor": _dtype.int64, "IntTensor": _dtype.int32,
          "ShortTensor": _dtype.int16, "CharTensor": _dtype.int8, "ByteTensor": _dtype.uint8,
          "BoolTensor": _dtype.bool}


def dtype_of_type_name(name):
    if name == "torch.Tensor":  # the default tensor type: the default dtype, as torch.set_default_dtype left it
        return _dtype.get_default_dtype()
    base = name.split(".")[-1]
    if base not in LEGACY:
        raise ValueError(f"invalid type: '{name}'")
    return LEGACY[base]


def _legacy_type_name(dt, dev, layout=_layout.strided):
    """torch's legacy type name of a tensor: ``torch.FloatTensor``, ``torch.cuda.LongTensor``, a COO tensor's
    ``torch.sparse.DoubleTensor``; torch has none for the compressed sparse layouts."""
    if layout is not _layout.strided and layout is not _layout.sparse_coo:
        raise RuntimeError(f"Unimplemented backend SparseCsr{'CUDA' if dev.type == 'cuda' else 'CPU'}")
    prefix = "torch.cuda." if dev.type == "cuda" else "torch."
    if layout is _layout.sparse_coo:
        prefix += "sparse."
    return prefix + _LEGACY_NAMES.get(dt.name, dt.name)


def _real_part(v, ctype):
    """float(t) / int(t) of a complex tensor: its real part where the imaginary part is 0, else torch's
    RuntimeError (``float(torch.tensor(2+3j))``)."""
    if v.imag != 0:
        raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
    return v.real


class TensorCasts:
    """Mixin of ``Tensor`` (no state of its own): the methods that move a tensor to a named dtype."""

    __slots__ = ()

    def type(self, dtype=None, non_blocking=False, *, memory_format=None, **kw):
        no_other_keywords("type", kw, allowed=("async",))  # (``async``: the deprecated name of non_blocking)
        if dtype is None:
            return _legacy_type_name(self.dtype, self._dev, self.layout)
        cuda = False
        if isinstance(dtype, str):
            cuda = dtype.startswith("torch.cuda.")
            dtype = dtype_of_type_name(dtype)
        elif isinstance(dtype, type):
            # torch.Tensor itself (the class whose direct base is this mixin) names the default tensor type;
            # a subclass (nn.Parameter) or any other class is named by its bare name, an invalid type as in torch
            is_tensor = TensorCasts in dtype.__bases__
            cuda = getattr(dtype, "is_cuda", None) is True  # torch.cuda.FloatTensor & co.
            dtype = dtype_of_type_name("torch.Tensor" if is_tensor else dtype.__name__)
        elif not isinstance(dtype, _dtype.dtype):
            raise TypeError("dtype must be a type, str, or dtype object")
        if cuda:
            if not _gpus():
                raise RuntimeError(_NO_ATEN_CUDA)
            return self.to(device="cuda", dtype=dtype)
        return self.to(dtype)

    def type_as(self, other):
        try:
            dtype = other.dtype
        except AttributeError:  # (torch's parser: a Tensor)
            raise argument_error(other, "Tensor", "other", "type_as", 1) from None
        return self.to(dtype)

    def float(self, *, memory_format=None):
        return self.to(_dtype.float32)

    def double(self, *, memory_format=None):
        return self.to(_dtype.float64)

    def half(self, *, memory_format=None):
        return self.to(_dtype.float16)

    def bfloat16(self, *, memory_format=None):
        return self.to(_dtype.bfloat16)

    def long(self, *, memory_format=None):
        return self.to(_dtype.int64)

    def int(self, *, memory_format=None):
        return self.to(_dtype.int32)

    def short(self, *, memory_format=None):
        return self.to(_dtype.int16)

    def char(self, *, memory_format=None):
        return self.to(_dtype.int8)

    def byte(self, *, memory_format=None):
        return self.to(_dtype.uint8)

    def bool(self, *, memory_format=None):
        return self.to(_dtype.bool)

    def cfloat(self, *, memory_format=None):
        return self.to(_dtype.complex64)

    def cdouble(self, *, memory_format=None):
        return self.to(_dtype.complex128)

    def chalf(self, *, memory_format=None):
        """Cast to complex32 (stored as complex64 here)."""
        return self.to(_dtype.complex32)

    def __float__(self):
        v = self._python_scalar(True)
        return _real_part(v, "double") if isinstance(v, complex) else float(v)

    def __int__(self):
        v = self._python_scalar(False)
        if isinstance(v, complex):  # torch's checked conversion of a complex value (truncating its real part)
            r = _real_part(v, "int64_t")
            if r != r or not -2.0 ** 63 <= r <= 2.0 ** 63:
                raise RuntimeError("value cannot be converted to type int64_t without overflow")
            return int(r)
        return int(v)

    __long__ = __int__  # torch's TensorBase keeps Python 2's name for int()

    def __complex__(self):
        return complex(self._python_scalar(True))

    def _python_scalar(self, warn_grad):
        # float()/complex() of a tensor requiring grad in grad mode: torch's TORCH_WARN_ONCE (int() does not warn)
        if warn_grad and self.requires_grad and _grad_mode._state.enabled:
            torch_warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                       "Consider using tensor.detach() first.",
                       "torch/csrc/autograd/generated/python_variable_methods.cpp:822", once=True)
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()


as_tensor_methods(TensorCasts)
