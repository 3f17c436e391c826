"""Random number generation: torch's Generator API.

On the CPU, in eager mode, a Generator is torch's: an MT19937 engine (``_mt.MTEngine``) whose words
are turned into values by ports of torch's CPU kernels (``_mt_kernels``), so the same seed gives the
same numbers as torch.  Inside ``torchlike.compile``d code (and for tensors on an accelerator) draws
come from a JAX threefry key held in ``Generator._state`` (a Tensor, so compile lifts it like any
other state); those streams are not torch's.  With ``torch._inductor.config.fallback_random = True`` (torch's
switch that makes compiled code draw as eager code does), a CPU draw traced by compile is an ordered
``io_callback`` into the eager kernels instead: the compiled program takes torch's stream at run time.
"""
from __future__ import annotations

import functools
import weakref
import math
import zlib

import jax
from jax._src import xla_bridge as _xla_bridge
from jax.experimental import io_callback as _io_callback
import jax.numpy as jnp
import numpy as np
import ml_dtypes

from . import _fork_guard, _memory_format as _mfmt
from . import _dtype, _jit_cache
from . import _mt_kernels as _K
from . import _mt_rejection as _R, _trace_hooks
from ._errors import check_alloc
from ._device import _gpus, canonical
from ._mt import DEFAULT_SEED, MTEngine, nondeterministic_seed
from ._mt_xla import to_device
from ._trace_hooks import current as _current_trace
from .tensor import HOST_MAX, Tensor

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "default_generator", "get_rng_state",
           "set_rng_state", "draw", "host_stream", "torch_draw", "fork_rng", "fill_order", "in_fill_order", "like_order"]


traced_torch_stream = []  # callables; when one returns True, CPU draws traced by compile follow torch's stream
_callback_draws = []  # non-empty once a compiled program draws through io_callback (Generator._mt then syncs)


def _check_seed(seed):
    seed = int(seed)
    if not -0x8000_0000_0000_0000 <= seed <= 0xffff_ffff_ffff_ffff:
        raise ValueError("Overflow when unpacking long long")
    return seed & 0xffff_ffff_ffff_ffff


_NO_CUDA_GENERATOR = (
    "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two shared libraries: a CPU "
    "library and a CUDA library; this error has occurred because you are trying to use some CUDA functionality, but "
    "the CUDA library has not been loaded by the dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN "
    "IF you don't directly use any symbols from the CUDA library! One common culprit is a lack of -Wl,--no-as-needed "
    "in your link arguments; many dynamic linkers will delete dynamic library dependencies if you don't depend on any "
    "of their symbols.  You can check if this has occurred by using ldd on your binary to see if there is a dependency "
    "on *_cuda.so library.")


class Generator:
    """A source of random numbers (torch.Generator); on the CPU its streams are torch's.

    >>> import torchlike
    >>> g = torchlike.Generator().manual_seed(0)
    >>> torchlike.rand(2, generator=g)
    tensor([0.4963, 0.7682])
    """

    def __init__(self, device="cpu"):
        self.device = canonical(device)
        if self.device.type == "meta":
            raise RuntimeError("META device type not an accelerator.")
        if self.device.type == "cuda" and not _gpus():  # (a CPU-only torch's words)
            raise RuntimeError(_NO_CUDA_GENERATOR)
        self._engine = MTEngine(DEFAULT_SEED)
        self._state = Tensor._wrap(_key(DEFAULT_SEED))
        _host_keyed.add(self)

    @property
    def _mt(self):
        """The MT19937 engine; first waits for compiled programs that may still be drawing from it."""
        if _callback_draws:
            jax.effects_barrier()
        return self._engine

    def manual_seed(self, seed):
        """Seed the generator (as ``std::mt19937(seed)``: the low 32 bits pick the stream); returns it."""
        seed = _check_seed(seed)
        self._mt.manual_seed(seed)
        self._state._set_value(_key(seed % (2 ** 63)))
        _host_keyed.add(self)
        return self

    def seed(self):
        """Seed from the OS; returns the seed."""
        s = nondeterministic_seed()
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._mt.seed

    def get_state(self):
        """The state as torch's CPU layout: a uint8 tensor of 5056 bytes (words, position, seed, normal cache)."""
        return Tensor._wrap(jnp.asarray(np.frombuffer(self._mt.get_bytes(), np.uint8).copy()))

    def set_state(self, new_state):
        """Restore a state from :meth:`get_state` (torch's or torchlike's bytes)."""
        if not isinstance(new_state, Tensor) or new_state.dtype is not _dtype.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.asarray(new_state._value).reshape(-1).tobytes()
        self._mt.set_bytes(raw)
        self._state._set_value(_key(zlib.crc32(raw)))
        _host_keyed.add(self)
        return self

    def clone_state(self):
        g = Generator(self.device)
        g._mt.copy_from(self._mt)
        g._state._set_value(self._state._value)
        return g

    def get_offset(self):
        """Philox offset (CUDA generators only): a CPU generator raises, as torch's does."""
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset):
        raise RuntimeError("CPU Generator does not use offset")

    def graphsafe_get_state(self):
        raise NotImplementedError("graphsafe_get_state is not supported in this Generator")

    def graphsafe_set_state(self, state):
        raise NotImplementedError("graphsafe_set_state is not supported in this Generator")

    def __repr__(self):
        return f"<torch._C.Generator object at {hex(id(self))}>"

    def next_key(self):
        """A fresh JAX subkey; advances the key state (the non-torch path)."""
        if vmap_modes and "error" in vmap_modes:
            raise RuntimeError(_VMAP_RANDOM_ERROR)
        k = _device_key(self._state)
        new, sub = _split(k)
        self._state._set_value(new)
        return sub


def _key(seed):
    """``jax.random.PRNGKey(seed)`` (threefry, 64-bit seeds) built on the host: no XLA computation, so
    importing torchlike leaves JAX's backends uninitialised (jax.distributed can still start after it)."""
    k = np.array([(seed >> 32) & 0xFFFF_FFFF, seed & 0xFFFF_FFFF], np.uint32)
    # once JAX computes anyway: a device array (not in a forked child, where the runtime would hang)
    return jnp.asarray(k) if _xla_bridge._backends and not _fork_guard.forked_child() else k


_host_keyed = weakref.WeakSet()  # generators whose key may still be the host-built numpy array


def device_keys():
    """Move every generator's host-built key to the device (torchlike.compile calls this before it
    traces: a key first moved inside a trace would be baked into the program instead of lifted)."""
    for g in list(_host_keyed):
        _device_key(g._state)
    _host_keyed.clear()


_trace_hooks.before_trace.append(device_keys)


def _device_key(state):
    """The key tensor's array, moved to the device first if it is still the host-built one (so that
    torchlike.compile lifts it as an input like any device array, rather than baking it in)."""
    if type(state._x) is np.ndarray:
        with jax.ensure_compile_time_eval():  # a concrete array even inside a trace, never a tracer
            state._x = jnp.asarray(state._x)
    return state._value


@jax.jit
def _split(k):
    a, b = jax.random.split(k)
    return a, b


default_generator = Generator()
default_generator.seed()  # like torch: an unseeded process draws its seed from the OS


def manual_seed(seed):
    """Seed the default generator; returns it.

    >>> import torchlike
    >>> _ = torchlike.manual_seed(0); torchlike.randint(0, 10, (4,))
    tensor([4, 9, 3, 0])
    """
    return default_generator.manual_seed(seed)


def seed():
    """Seed the default generator from the OS; returns the seed."""
    return default_generator.seed()


def initial_seed():
    """The default generator's seed."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state (torch's 5056-byte CPU layout)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default generator's state (bytes from torch's or torchlike's ``get_rng_state``)."""
    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
    default_generator.set_state(new_state)


class fork_rng:
    """Context manager (or decorator) restoring the default generator's state on exit."""

    def __init__(self, devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            self.state = get_rng_state()

    def __exit__(self, *a):
        if self.enabled:
            set_rng_state(self.state)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with fork_rng(enabled=self.enabled):
                return fn(*args, **kwargs)
        return wrapper


# --- drawing ---------------------------------------------------------------------------------------------------
def _is_tracing():
    return _current_trace() is not None  # the trace stack compile pushes (kept in layer 0, _trace_hooks)


vmap_modes = []  # randomness modes of the enclosing torchlike.func.vmap calls (innermost last)
_VMAP_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either use the 'same' "
                      "or 'different' randomness flags on vmap or perform the randomness operation out of vmap")


def _follows_torch_when_traced(g, args):
    if g.device.type != "cpu" or vmap_modes or not traced_torch_stream or not any(f() for f in traced_torch_stream):
        return False
    return not any(isinstance(a, jax.core.Tracer) for a in args)


def _callback_draw(g, kind, shape, dt, args, params):
    """A traced draw that runs ``torch_draw`` on ``g``'s engine when the program runs (ordered with the
    program's other draws; eager code reading the engine afterwards waits for it: ``Generator._mt``)."""
    def host():
        return np.asarray(torch_draw(g._engine, kind, shape, dt, args, params), dt)

    if not _callback_draws:
        _callback_draws.append(True)
    return _io_callback(host, jax.ShapeDtypeStruct(shape, dt), ordered=True)


def _torch_stream(g, args):
    """Whether this draw follows torch's CPU stream (eager, CPU generator, concrete arguments, not vmapped)."""
    if g.device.type != "cpu" or vmap_modes or _is_tracing():
        return False
    return not any(isinstance(a, jax.core.Tracer) for a in args)


def host_stream(generator):
    """The MT19937 engine an eager draw from ``generator`` (None: the default one) takes torch's stream from,
    or None where ``draw`` must decide (an accelerator generator, vmap, a torchlike.compile trace).  The
    factories' fast path (``random_ops._quick``) calls ``torch_draw`` on it directly, for concrete plain
    arguments: the same words consumed and the same values as ``draw``'s eager CPU path."""
    g = generator if generator is not None else default_generator
    if vmap_modes or g.device.type != "cpu" or _current_trace() is not None:
        return None
    return g._mt


def draw(kind, shape, dtype, generator=None, args=(), params=(), host=False, device=None):
    """Draw a sample array of ``kind`` with ``shape``/``dtype``; advances the generator.

    Eager CPU draws reproduce torch's CPU kernels (values and generator advance); traced draws use the
    generator's JAX key.  ``host``: an eager CPU draw of at most ``HOST_MAX`` elements comes back as the
    numpy array itself (for a host-resident tensor, ``Tensor._from_host``), not moved to the device.
    ``device``: the result's device; a 'meta' tensor has no values, so as in torch its draw leaves the
    generator untouched (``from_pretrained``/``init_empty_weights`` build models on it).
    """
    if vmap_modes and "error" in vmap_modes:
        raise RuntimeError(_VMAP_RANDOM_ERROR)
    check_alloc(shape, dtype, given=True)
    if device is not None and getattr(device, "type", device) == "meta":
        z = np.zeros(tuple(shape), np.dtype(dtype))
        return z if host and z.size <= HOST_MAX else to_device(z)
    g = generator if generator is not None else default_generator
    if _torch_stream(g, args):
        x = torch_draw(g._mt, kind, tuple(shape), np.dtype(dtype), args, dict(params))
        return x if host and x.size <= HOST_MAX else to_device(x)
    if _is_tracing() and _follows_torch_when_traced(g, args):
        return _callback_draw(g, kind, tuple(shape), np.dtype(dtype), tuple(args), dict(params))
    if kind == "randint":  # jax's bounds are int64
        args = (max(args[0], -2 ** 63), min(args[1], 2 ** 63 - 1))
    new, x = _sampler(kind, tuple(shape), np.dtype(dtype), tuple(params))(_device_key(g._state), *args)
    g._state._set_value(new)
    return x


def fill_order(shape, strides):
    """C-order flat indices of a tensor of ``shape``/``strides`` in the order torch's TensorIterator fills
    it (dimensions by decreasing stride, size-1 ones ignored), or None when that order is C order."""
    dims = [d for d, n in enumerate(shape) if n != 1]
    outer = sorted(dims, key=lambda d: -strides[d])  # stable: equal strides keep their order
    if outer == dims:
        return None
    perm = outer + [d for d, n in enumerate(shape) if n == 1]
    return np.arange(math.prod(shape)).reshape(shape).transpose(perm).reshape(-1)


def in_fill_order(x, order):
    """``x`` (drawn as one sequence) with its i-th value placed at C index ``order[i]``."""
    if order is None:
        return x
    inv = np.empty_like(order)
    inv[order] = np.arange(order.size)
    return x.reshape(-1)[inv].reshape(x.shape)


def like_order(t, memory_format=None):
    """torch's fill order of ``empty_like(t, memory_format)`` (None: C order): ``preserve`` keeps the
    stride order of a strided view; ``channels_last``/``channels_last_3d`` fill channels innermost."""
    name = str(memory_format) if memory_format is not None else "preserve_format"
    shape = tuple(t.shape)
    if name.endswith("channels_last") and len(shape) == 4 or name.endswith("channels_last_3d") and len(shape) == 5:
        perm = (0,) + tuple(range(2, len(shape))) + (1,)
        strides = [0] * len(shape)
        acc = 1
        for d in reversed(perm):
            strides[d] = acc
            acc *= shape[d]
        return fill_order(shape, strides)
    if not name.endswith("preserve_format") or not _mfmt.needs_layout(t) or t.is_contiguous():
        return None
    return fill_order(shape, _mfmt.preserve_strides(t))


def _real_of(dt):
    return np.dtype(dt).type(0).real.dtype


def torch_draw(e, kind, shape, dt, args, params):
    """numpy values of torch's CPU kernel for ``kind`` (C order), consuming ``e``'s words as torch does."""
    n = math.prod(shape)
    if kind == "uniform" and dt.kind == "f":  # the hot cases first
        return _K.uniform(e, n, dt, *args).reshape(shape)
    if kind == "randint":
        return _K.random_from_to(e, n, *args).astype(dt, copy=False).reshape(shape)
    if kind in ("uniform", "normal", "normal_scalar") and dt.kind == "c":  # torch samples view_as_real
        r = _real_of(dt)
        if kind == "uniform":
            x = _K.uniform(e, 2 * n, r, *args)
        elif kind == "normal":
            mean, std = args
            x = _K.normal(e, 2 * n, r, mean, std / np.sqrt(2.0))
        else:  # a non-contiguous complex tensor: its real view takes the element-by-element kernel
            mean, std = args
            x = _K.cast(_K.normal_scalar(e, 2 * n, mean, std / np.sqrt(2.0)), r)
        return x.view(dt).reshape(shape)
    if kind == "uniform":
        x = _K.uniform(e, n, dt, *args)
    elif kind == "normal":
        x = _K.normal(e, n, dt, *args)
    elif kind == "normal_scalar":
        x = _K.cast(_K.normal_scalar(e, n, *args), dt)
    elif kind == "randint":
        x = _K.random_from_to(e, n, *args).astype(dt)
    elif kind == "random":
        x = _K.random_default(e, n, dt)
    elif kind == "random_full64":
        x = _K.random_full64(e, n).astype(dt)
    elif kind == "bernoulli":
        p = args[0]
        if isinstance(p, (int, float)):
            x = _K.bernoulli_scalar(e, n, p)
        else:
            x = _K.bernoulli_tensor(e, np.broadcast_to(np.asarray(p), shape))
        x = x.astype(dt)
    elif kind == "perm":
        x = _K.randperm(e, shape[0]).astype(dt)
    elif kind in ("exponential", "geometric", "cauchy", "lognormal"):
        f = {"exponential": _K.exponential, "geometric": _K.geometric, "cauchy": _K.cauchy,
             "lognormal": _K.log_normal}[kind]
        x = _K.cast(f(e, n, *args), dt)
    elif kind == "multinomial":
        probs = np.asarray(args[0])
        rows = probs.reshape(-1, probs.shape[-1])
        x = _K.multinomial(e, rows, params["n"], params["replacement"]).astype(dt)
    elif kind == "poisson":
        x = _K.cast(_K.poisson(e, np.asarray(args[0])), dt)
    elif kind == "gamma":
        x = _R.standard_gamma(e, np.asarray(args[0]).astype(dt))
    elif kind == "dirichlet_gammas":
        x = _R.dirichlet_gammas(e, np.asarray(args[0]))
    elif kind == "binomial":
        x = _R.binomial(e, np.asarray(args[0]).astype(dt), np.asarray(args[1]).astype(dt))
    else:
        raise NotImplementedError(kind)
    return np.asarray(x).reshape(shape)


_samplers = _jit_cache.Cache("random")


def _sampler(kind, shape, np_dtype, params):
    key = (kind, shape, np_dtype, params)
    e = _samplers.get(key)
    if e is not None:
        return e
    kw = dict(params)

    def f(key, *args):
        new, sub = jax.random.split(key)
        return new, _DRAW[kind](sub, shape, np_dtype, *args, **kw)
    return _samplers.add(key, jax.jit(f))


def _uniform(key, shape, dt, low, high):
    if np.dtype(dt).kind == "c":
        r = np.dtype(dt).type(0).real.dtype
        k1, k2 = jax.random.split(key)
        return (jax.random.uniform(k1, shape, r) + 1j * jax.random.uniform(k2, shape, r)).astype(dt)
    return (jax.random.uniform(key, shape, jnp.float32 if dt in (np.float16,) else dt) * (high - low)
            + low).astype(dt)


def _normal(key, shape, dt, mean, std):
    if np.dtype(dt).kind == "c":
        r = np.dtype(dt).type(0).real.dtype
        k1, k2 = jax.random.split(key)
        z = (jax.random.normal(k1, shape, r) + 1j * jax.random.normal(k2, shape, r)) / np.sqrt(2)
        return (z * std + mean).astype(dt)
    return (jax.random.normal(key, shape, jnp.float32 if dt not in (np.float64,) else dt) * std + mean).astype(dt)


def _randint(key, shape, dt, low, high):
    return jax.random.randint(key, shape, low, high, dtype=jnp.int64).astype(dt)


def _bernoulli(key, shape, dt, p):
    return (jax.random.uniform(key, shape, jnp.float64) < p).astype(dt)


def _perm(key, shape, dt):
    return jax.random.permutation(key, shape[0]).astype(dt)


def _exponential(key, shape, dt, lambd):
    return (jax.random.exponential(key, shape, jnp.float64) / lambd).astype(dt)


def _geometric(key, shape, dt, p):
    u = jax.random.uniform(key, shape, jnp.float64, minval=1e-300)
    return jnp.ceil(jnp.log(u) / jnp.log1p(-p)).astype(dt)


def _cauchy(key, shape, dt, median, sigma):
    return (median + sigma * jax.random.cauchy(key, shape, jnp.float64)).astype(dt)


def _lognormal(key, shape, dt, mean, std):
    return jnp.exp(mean + std * jax.random.normal(key, shape, jnp.float64)).astype(dt)


def _multinomial(key, shape, dt, probs, n, replacement):
    logits = jnp.log(probs)
    if replacement:
        return jax.random.categorical(key, logits, axis=-1, shape=(n,) + probs.shape[:-1]).T.reshape(shape).astype(dt)
    g = jax.random.gumbel(key, probs.shape) + logits
    return jnp.argsort(-g, axis=-1)[..., :n].astype(dt)


def _poisson(key, shape, dt, rate):
    return jax.random.poisson(key, rate, shape).astype(dt)


def _gamma(key, shape, dt, alpha):
    return jnp.maximum(jax.random.gamma(key, alpha.astype(dt), shape, dt), ml_dtypes.finfo(dt).tiny)


def _dirichlet_gammas(key, shape, dt, alpha):
    return jnp.maximum(jax.random.gamma(key, alpha.astype(jnp.float64), shape, jnp.float64),
                       np.finfo(np.float64).tiny)


def _binomial(key, shape, dt, count, prob):
    return jax.random.binomial(key, count.astype(jnp.float64), prob.astype(jnp.float64), shape).astype(dt)


_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def _random_bits(key, shape, dt):
    """``random_()`` without bounds: [0, 2**digits] for floats, [0, max] for integers, {0, 1} for bool."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        hi = 2
    elif dt.name in _DIGITS:
        hi = 2 ** _DIGITS[dt.name] + 1
    else:
        hi = int(np.iinfo(dt).max) + 1
    if hi > 2 ** 62:
        return (jax.random.bits(key, shape, jnp.uint64) >> 1).astype(dt)
    return jax.random.randint(key, shape, 0, hi, dtype=jnp.int64).astype(dt)


def _full64(key, shape, dt):
    return jax.random.bits(key, shape, jnp.uint64).view(jnp.int64).astype(dt)


_DRAW = {"random": _random_bits, "random_full64": _full64, "normal_scalar": _normal, "uniform": _uniform, "normal": _normal, "randint": _randint, "bernoulli": _bernoulli, "perm": _perm,
         "exponential": _exponential, "geometric": _geometric, "cauchy": _cauchy, "lognormal": _lognormal,
         "multinomial": _multinomial, "poisson": _poisson, "gamma": _gamma, "dirichlet_gammas": _dirichlet_gammas,
         "binomial": _binomial}
