"""torchlike: PyTorch's programming model on JAX.

>>> import torchlike as torch
>>> x = torch.arange(3)
>>> x.dtype, (x * 2.5).dtype
(torch.int64, torch.float32)
"""
from __future__ import annotations

# JAX logs its backend start ("Unable to initialize backend 'tpu'") at INFO, and at import and each compile at
# DEBUG: a script that calls logging.basicConfig(level=logging.INFO) would print lines torch never prints. So,
# before JAX is imported, only its WARNING and up pass, unless the user asked JAX for its logs (JAX_LOGGING_LEVEL,
# or a level already set on the "jax" logger).
if not __import__("os").environ.get("JAX_LOGGING_LEVEL") and __import__("logging").getLogger("jax").level == 0:
    __import__("logging").getLogger("jax").setLevel(__import__("logging").WARNING)

import jax as _jax  # noqa: E402

# torch's dtypes need real int64/float64; every op passes its result dtype explicitly.
_jax.config.update("jax_enable_x64", True)

# JAX hands every CPU program of 1000+ flops to a worker thread (~15-30 us each): a small eager model runs
# faster with that off, a large one slower (docs/eager_speed.md), so it is the user's choice, before any op
if __import__("os").environ.get("TORCHLIKE_CPU_ASYNC_DISPATCH") == "0":
    _jax.config.update("jax_cpu_enable_async_dispatch", False)

# os.fork() next to a running JAX runtime: torchlike's warning and child state instead of JAX's (_fork_guard.py)
from . import _fork_guard  # noqa: E402
_fork_guard.install()

# a launched distributed worker must start JAX's runtime before any computation (see distributed/_runtime.py)
from .distributed import _runtime as _dist_runtime  # noqa: E402
_dist_runtime.start_from_env()

from . import _dtype, _profiler_state, _torch_paths  # noqa: E402
from ._dtype import (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu)  # noqa: F401,E402
from ._dtype import (bits1x8, bits2x4, bits4x2, bits8, bits16, bit, int1, int2, int3, int4, int5, int6,  # noqa: F401,E402
                     int7, uint1, uint2, uint3, uint4, uint5, uint6, uint7, float4_e2m1fn_x2)  # (shell dtypes)
from ._dtype import qint8, quint8, qint32, quint4x2, quint2x4  # noqa: F401,E402
from ._dtype import (bfloat16, bool, cdouble, cfloat, chalf, complex32, complex64, complex128, double,  # noqa
                     dtype, finfo, float, float16, float32, float64, get_default_dtype, half, iinfo, int,
                     int8, int16, int32, int64, long, promote_types, result_type, can_cast, set_default_dtype,
                     short, uint8, uint16, uint32, uint64)
from ._device import device, get_default_device, set_default_device  # noqa: E402
from .tensor import Size, Tensor  # noqa: E402
from . import _mutation  # noqa: E402,F401  (installs Tensor._inplace_update: layer 2)
from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: E402
                                 is_inference_mode_enabled, no_grad, set_grad_enabled)
from . import autograd  # noqa: E402
from ._creation import (as_tensor, asarray, empty, empty_like, empty_strided, from_numpy,  # noqa
                        from_jax, frombuffer, full, full_like, ones, ones_like,
                        scalar_tensor, tensor, zeros, zeros_like)
from ._creation_ranges import arange, eye, linspace, logspace, range, tril_indices, triu_indices  # noqa
from ._random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed,  # noqa: E402
                      seed, set_rng_state)
from ._printing import set_printoptions  # noqa: E402
from ._jit_cache import cache_info, clear_caches, set_cache_size, set_tiered_compile, set_eager_compile_options  # noqa: E402,F401  (torchlike-only)
from . import _jit_cache as _jc  # noqa: E402
_jc.setup_persistent_cache()
from . import _ir_context  # noqa: E402
_ir_context.install()
from ._memory_format import (channels_last, channels_last_3d, contiguous_format, memory_format,  # noqa
                             preserve_format)
from . import _ops  # noqa: E402
from . import _inference  # noqa: E402,F401  (inference tensors: installed when inference mode is first entered)
from . import return_types  # noqa: E402,F401
from . import linalg, special, fft, masked, signal  # noqa: E402
from ._ops import registry as _registry  # noqa: E402
from . import _host_ops  # noqa: E402,F401  (numpy fast paths for ops on host-resident tensors)
import sys as _sys  # noqa: E402

from . import _storage, _shared_memory  # noqa: E402,F401  (declare the Tensor's storage methods, so before install)
from ._ops import tensor_set  # noqa: E402,F401  (Tensor.set_ on storages: after _storage, over the op table's stub)
from . import _param_alias  # noqa: E402,F401  (``p.data = t`` shares t's storage)
from . import sparse  # noqa: E402  (torch.sparse; declares the table's sparse kernels, so before install)
from ._quantized import (qscheme, per_tensor_affine, per_channel_affine, per_tensor_symmetric,  # noqa: E402,F401
                         per_channel_symmetric, per_channel_affine_float_qparams)  # (declares quantized ops too)
from . import _fake_quantize  # noqa: E402,F401  (declares the fake-quantize ops)
_registry.install({"torch": _sys.modules[__name__], "linalg": linalg, "special": special, "fft": fft,
                   "nn.functional": None, "aten": _ops.aten_ops.ATEN}, Tensor)

from . import compile  # noqa: E402,F401  (callable: torchlike.compile(fn) and torchlike.compile.explain)
from . import nn  # noqa: E402,F401
from . import optim  # noqa: E402,F401


from ._global_settings import *  # noqa: E402,F401,F403
from . import export  # noqa: E402,F401
from . import profiler  # noqa: E402,F401  (torch.profiler is an attribute of torch)
from . import cuda, amp, backends, utils, jit, onnx, accelerator, distributed, xpu, mps  # noqa: E402,F401
# the first instance of a __torch_dispatch__ subclass loads the dispatcher of their ops (_tensor_wrapper.note_dispatch)
_profiler_state.SUBCLASS_LOADER[0] = lambda: _torch_paths.lazy_import("torchlike.utils._python_dispatch")
from .accelerator import Stream, Event  # noqa: E402,F401  (torch.Stream / torch.Event)
from ._errors import OutOfMemoryError, AcceleratorError  # noqa: E402,F401
torch = _sys.modules[__name__]  # torch.torch is torch (kornia annotates with torch.torch.Tensor)
from . import serialization, safetensors  # noqa: E402
sparse._install(_sys.modules[__name__])  # sparse conversions on dense tensors, sparse constructors here
from . import func  # noqa: E402,F401
from . import _torch_function  # noqa: E402  (the __torch_function__ protocol wraps these once a subclass needs it)
for _ns in (_sys.modules[__name__], nn.functional, linalg, special, fft):
    _torch_function.register_namespace(_ns, _torch_function.IGNORED_TORCH_NAMES)
# (torch's nn.init dispatches these four only: a mode such as Lightning's _EmptyInit sees them)
_torch_function.register_namespace(nn.init, frozenset(nn.init.__all__) - {"uniform_", "normal_", "constant_",
                                                                        "kaiming_uniform_"})
from .amp.autocast_mode import (autocast, clear_autocast_cache, get_autocast_dtype,  # noqa: E402,F401,F811
                                is_autocast_cache_enabled, is_autocast_enabled, set_autocast_cache_enabled,
                                set_autocast_dtype, set_autocast_enabled, autocast_increment_nesting,
                                autocast_decrement_nesting, LEGACY_FUNCTIONS as _LEGACY_AUTOCAST)
globals().update(_LEGACY_AUTOCAST)  # torch.is_autocast_cpu_enabled(), torch.get_autocast_gpu_dtype(), ...
from .func import vmap  # noqa: E402,F401
from . import multiprocessing, random, testing  # noqa: E402,F401
from . import quasirandom  # noqa: E402,F401  (torch.quasirandom is an attribute of torch)
from .serialization import load, save  # noqa: E402,F401
from . import compiler, library, fx, _dynamo, _inductor, cpu, version, hub, _C, ao, quantization  # noqa: E402,F401  (what libraries built on torch reach for)
from .library import ops  # noqa: E402,F401
from . import __config__, _tensor_str, futures  # noqa: E402,F401  (torch.__config__.show(), torch._tensor_str, torch.futures)
from ._C import TensorType  # noqa: E402,F401  (open_clip annotates with torch.TensorType)
# TorchScript's other type objects (pytorch-forecasting annotates with torch.DeviceObjType)
from ._C import (Type, AnyType, BoolType, ComplexType, DeviceObjType, FloatType, IntType,  # noqa: E402,F401
                 NoneType, NumberType, PyObjectType, StreamObjType, StringType, SymBoolType, SymIntType)
from ._storage import UntypedStorage, TypedStorage, LEGACY_STORAGES as _LEGACY_STORAGES  # noqa: E402,F401
from . import storage  # noqa: E402,F401  (torch.storage)
globals().update(_LEGACY_STORAGES)  # torch.FloatStorage, torch.LongStorage, ...
Storage = _LEGACY_STORAGES["FloatStorage"]  # torch.Storage is torch.FloatStorage
from ._symbolic import *  # noqa: E402,F401,F403
from ._higher_order_ops import cond, while_loop  # noqa: E402,F401
from ._toplevel_extras import *  # noqa: E402,F401,F403  (torch.Future, torch.relu_ & co., torch.detach, ...)
from ._toplevel_extras import reject_non_tensor as _reject_non_tensor  # noqa: E402
from ._toplevel_kernels import *  # noqa: E402,F401,F403  (torch.lstm, torch.convolution, batch_norm_stats, ...)
from ._foreach import *  # noqa: E402,F401,F403  (torch._foreach_mul_ & co.: optimizers' multi-tensor ops)
from ._toplevel_runtime import *  # noqa: E402,F401,F403  (build flags, torch.fork, from_file, removed functions)
from ._missing import module_getattr as _module_getattr  # noqa: E402

_missing_getattr = _module_getattr("torch")


_SAMPLING_OPS = ("_standard_gamma", "_standard_gamma_grad", "_dirichlet_grad", "_sample_dirichlet")


def __getattr__(name):
    """``torch.distributions``, ``torch.overrides``, ``torch.functional`` and ``torch.nested`` are loaded on first
    use. They are written on this finished facade (layer 7 in docs/DEVELOPING.md: their modules ``import
    torchlike``), so the facade cannot import them while it is still being built; everything else missing raises
    MissingAPI."""
    if name in ("distributions", "overrides", "functional", "nested") or name in _SAMPLING_OPS:
        import importlib  # (not `from . import`: that asks this __getattr__ again)
        if name in _SAMPLING_OPS:  # torch._standard_gamma & co.: the distributions' kernels, loaded with them
            return importlib.import_module(".distributions._sampling", __package__).TOPLEVEL[name]
        return _torch_paths.lazy_import(f"{__package__}.{name}")  # lazy: layer 7 loads after the facade
    return _missing_getattr(name)


from .utils.dlpack import from_dlpack, to_dlpack  # noqa: E402,F401
from .amp import GradScaler  # noqa: E402,F401  (torch.GradScaler is torch.amp.GradScaler)
has_lapack = has_spectral = True  # torch's build flags: linalg and fft are available
has_mkl = has_openmp = False  # (no MKL/OpenMP kernels here; libraries read these to pick code paths)


def is_vulkan_available() -> bool:
    """False: no Vulkan backend."""
    return False


def is_tensor(obj) -> bool:
    """True if ``obj`` is a torchlike Tensor."""
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    try:
        return input.dtype.is_floating_point
    except AttributeError:
        _reject_non_tensor(input, "is_floating_point")
        raise


def is_complex(input) -> bool:
    try:
        return input.dtype.is_complex
    except AttributeError:
        _reject_non_tensor(input, "is_complex")
        raise


def numel(input) -> int:
    try:
        return input.numel()
    except AttributeError:
        _reject_non_tensor(input, "numel")
        raise


def typename(obj, /) -> str:
    """The qualified name of ``obj``'s type as torch spells it: a tensor's ``type()``, else the object's (or,
    for an instance, its class's) ``module.qualname``, builtins unqualified.

    >>> import torchlike
    >>> torchlike.typename(torchlike.tensor([1, 2])), torchlike.typename(3), torchlike.typename(int)
    ('torch.LongTensor', 'int', 'int')
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = type(obj).__module__ or "", type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


from .torch_version import __version__  # noqa: E402  (a TorchVersion: compares as a version)
from ._C import PyTorchFileReader, ScriptFunction, ScriptModule  # noqa: E402,F401
