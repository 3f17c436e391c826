"""torch.device over JAX devices: 'cpu' is JAX's CPU, 'cuda:i' is JAX's i-th GPU, 'xla:i' is the i-th device
of JAX's default backend (TPU, GPU or CPU — torch_xla's convention) and 'tpu:i' JAX's i-th TPU."""
from __future__ import annotations

import functools
import re
import warnings

import jax
import numpy as np

__all__ = ["device", "get_default_device", "set_default_device"]


# torch's device types (c10's parser: a device object of any of them can be made; a tensor only on those
# torchlike runs: cpu, cuda, meta, xla, and 'tpu', torchlike's own name for JAX's TPUs)
_TYPES = frozenset(("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                    "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone", "tpu"))


_NOT_GIVEN = object()
_DEVICE_NAME = re.compile(r"[a-zA-Z_]+")
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+):([1-9][0-9]*|0)")


def _type_name(v):
    return type(v).__name__


class device:
    """A device a tensor lives on.

    >>> import torchlike
    >>> torchlike.device('cuda:1')
    device(type='cuda', index=1)
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index=_NOT_GIVEN):
        given = index is not _NOT_GIVEN  # (torch: an index passed, None included, forbids one in the string)
        if not given:
            index = None
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool) and not given:  # an index of the accelerator
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            if not _gpus():
                raise RuntimeError("Cannot access accelerator device when none is available.")
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type!r})")
        if index is not None:
            if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
                raise TypeError(f"device(): argument 'index' (position 2) must be int, not {_type_name(index)}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
            index = int(index)
        if ":" in type or not _DEVICE_NAME.fullmatch(type):  # c10's parser: a name, then ':' and a plain index
            m = _DEVICE_STRING.fullmatch(type)
            if not type:
                raise RuntimeError("Device string must not be empty")
            if m is None:
                raise RuntimeError(f"Invalid device string: '{type}'")
            if int(m[2]) > 2 ** 31 - 1:
                raise RuntimeError(f"Could not parse device index '{m[2]}' in device string '{type}'")
            if given:
                raise RuntimeError(f"type (string) must not include an index because index was passed "
                                   f"explicitly: {type}")
            type, index = m[1], int(m[2])
        if type not in _TYPES:
            raise RuntimeError(f"Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, "
                               f"fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device "
                               f"type at start of device string: {type}")
        if type == "mkldnn":
            warnings.warn("'mkldnn' is no longer used as device type. So torch.device('mkldnn') will be deprecated "
                          "and removed in the future. Please use other valid device types instead.", UserWarning,
                          stacklevel=2)
        self.type, self.index = type, index

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        # as torch: a device equals only a device (``torch.device("cpu") == "cpu"`` is False)
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        """``with torchlike.device(d):`` makes ``d`` the default device of factory functions inside."""
        _entered.append(_default[0])
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        _default[0] = _entered.pop()
        return False

    def jax_device(self):
        """The JAX device this names (raises torch's error when there is no GPU).  'meta' tensors are
        materialized on the CPU (docs/differences.md)."""
        if self.type in ("cpu", "meta"):
            return jax.local_devices(backend="cpu")[0]
        if self.type == "cuda":
            gpus = _gpus()
            if not gpus:
                raise AssertionError("Torch not compiled with CUDA enabled")
            i = self.index or 0
            if i >= len(gpus):
                raise RuntimeError("CUDA error: invalid device ordinal")
            return gpus[i]
        if self.type in ("xla", "tpu"):
            devs = jax.devices() if self.type == "xla" else _backend_devices("tpu")
            if not devs:
                raise RuntimeError("Cannot access accelerator device when none is available.")
            i = self.index or 0
            if i >= len(devs):
                raise RuntimeError(f"{self.type} device ordinal {i} is out of range: {len(devs)} device(s)")
            return devs[i]
        raise RuntimeError(f"device type '{self.type}' is not supported by torchlike")


def _backend_devices(backend):
    try:
        return jax.devices(backend)
    except RuntimeError:
        return []


_GPUS = []  # JAX's local GPUs, asked once (asking a machine without one raises inside JAX each time)


def _gpus():
    if not _GPUS:
        try:
            _GPUS.append(jax.local_devices(backend="gpu"))
        except RuntimeError:
            _GPUS.append([])
    return _GPUS[0]


CPU = device("cpu")
_default = [CPU]
_entered = []  # defaults to restore when ``with device(...)`` blocks exit


def canonical(d) -> device:
    """A device as tensors report it: an index for cuda ('cuda' -> 'cuda:0'), none for the CPU ('cpu:0' ->
    'cpu', as torch's CPU tensors and generators are on ``cpu`` whatever index they were asked for)."""
    if d is None:
        d = _default[0]
    elif not isinstance(d, device):
        d = device(d)
    if d.index is None:
        return device(d.type, 0) if d.type in ("cuda", "xla", "tpu") else d
    return CPU if d.type == "cpu" else d


def get_default_device() -> device:
    return _default[0]


def set_default_device(d) -> None:
    """Tensors are created on this device unless told otherwise."""
    d = device(d if d is not None else "cpu")
    _default[0] = d if d.type == "cpu" else canonical(d)  # (get_default_device keeps 'cpu:0', as torch's)


def of_array(arr) -> device:
    """The torch device of a concrete JAX array (CPU for tracers and numpy)."""
    try:
        devs = arr.devices()
    except Exception:
        return CPU
    d = next(iter(devs))
    gpus = _gpus()
    if gpus and d in gpus:
        return device("cuda", gpus.index(d))
    if d.platform == "cpu":
        return CPU
    if d.platform == "gpu" or d.platform in ("cuda", "rocm"):
        return device("cuda", 0)
    devs = jax.devices()  # a TPU (or another backend's) array: torch_xla names its devices 'xla:i'
    return device("xla", devs.index(d) if d in devs else 0)


OFF_CPU = [None]  # whether JAX's default device is an accelerator (a GPU or TPU machine), asked on first use


def off_cpu() -> bool:
    """Whether JAX's default device is not the CPU (asked without starting a backend where JAX_PLATFORMS
    names the CPU first)."""
    v = OFF_CPU[0]
    if v is None:
        plats = jax.config.jax_platforms
        v = OFF_CPU[0] = not (plats.split(",")[0] == "cpu" if plats else jax.default_backend() == "cpu")
    return v


def commit_to(values, dev, moving=("uncommitted",)):
    """``values`` (a new list) with the arrays whose placement is in ``moving`` put on JAX device ``dev``:
    ``'host'`` (numpy arrays), ``'uncommitted'`` (concrete JAX arrays on the default device, not pinned to
    it) and ``'committed'`` (concrete JAX arrays pinned to another device than ``dev``).  Tracers and
    everything else pass through.

    >>> import jax, numpy as np
    >>> [v.committed for v in commit_to([np.ones(2), jax.numpy.ones(2)], jax.devices('cpu')[0],
    ...                                  moving=('host', 'uncommitted'))]
    [True, True]
    """
    out = list(values)
    for i, v in enumerate(out):
        if type(v) is np.ndarray:
            kind = "host"
        elif isinstance(v, jax.Array) and not isinstance(v, jax.core.Tracer):
            kind = "committed" if v.committed else "uncommitted"
            if kind == "committed" and dev in v.devices():
                continue
        else:
            continue
        if kind in moving:
            out[i] = jax.device_put(v, dev)
    return out


def host_to_jax(arr, copy=True, concrete=False, cpu=False):
    """A ``jax.Array`` on the default device holding numpy ``arr``'s values.

    A transfer compiles nothing (``jnp.asarray``/``jnp.array`` bind JAX's ``stage`` or a convert
    program, compiled once per new shape and kept outside torchlike's cache bound).  The CPU client may
    alias an aligned numpy buffer, so ``copy=True`` (for buffers the caller does not own) copies first.
    A C-contiguous array goes through the batched transfer JAX's own jit dispatch uses (~10 us instead of
    ``device_put``'s ~100 us for a small array).  Under a JAX trace the result is the trace's constant,
    unless ``concrete`` (a host tensor moving to the device: state a compiled function reads, not a value
    it makes).  ``cpu``: the array is a CPU tensor's, put on JAX's CPU device (committed) where the default
    device is an accelerator."""
    if copy:
        arr = arr.copy()
    if cpu and off_cpu():
        if concrete:
            with jax.ensure_compile_time_eval():
                return jax.device_put(arr, CPU.jax_device())
        return jax.device_put(arr, CPU.jax_device())
    global _put
    if _put is None:
        _put = _fast_put()
    if _put is False or not arr.flags.c_contiguous or jax.config.jax_default_device is not None or \
            not (concrete or _put[3]()):  # under a JAX trace device_put is a traced op, the fast route is not
        if concrete:
            with jax.ensure_compile_time_eval():
                return jax.device_put(arr)
        return jax.device_put(arr)
    dev, sharding, put, _ = _put
    return put(_aval(arr.shape, arr.dtype), sharding, [arr], [dev], False)


_put = None  # (device, sharding, transfer, no-trace test) of this process's first device, found on first use


def _fast_put():
    try:
        from jax._src import core  # lazy: private API, looked up on first transfer
        from jax._src.lib import xla_client  # lazy: as above
        from jax.sharding import SingleDeviceSharding
        dev = jax.local_devices()[0]  # (jax.devices()[0] is rank 0's device in a multi-process job)
        return dev, SingleDeviceSharding(dev), xla_client.batched_device_put, core.trace_state_clean
    except Exception:  # an internal API moved: the public route
        return False


@functools.lru_cache(maxsize=1024)
def _aval(shape, dt):
    from jax._src import core  # lazy: private API, looked up on first transfer
    return core.ShapedArray(shape, dt)
