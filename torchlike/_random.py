"""Random number generation: torch's Generator API over JAX PRNG keys.

A Generator's state is a Tensor holding a raw threefry key, so compile can lift it like any other
state.  Each draw splits the key inside one jitted function per (distribution, shape, dtype).
"""
from __future__ import annotations

import functools
import time

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtype, _jit_cache
from ._device import canonical

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "default_generator", "get_rng_state",
           "set_rng_state", "draw", "fork_rng"]


class Generator:
    """A source of random numbers (torch.Generator).

    >>> import torchlike
    >>> g = torchlike.Generator().manual_seed(0)
    >>> torchlike.rand(2, generator=g).shape
    torch.Size([2])
    """

    def __init__(self, device="cpu"):
        from .tensor import Tensor
        self.device = canonical(device)
        self._seed = 67280421310721
        self._state = Tensor._wrap(jax.random.PRNGKey(self._seed))

    def manual_seed(self, seed):
        seed = int(seed)
        if not -0x8000_0000_0000_0000 <= seed <= 0xffff_ffff_ffff_ffff:
            raise RuntimeError(f"Overflow when unpacking long")
        self._seed = seed & 0xffff_ffff_ffff_ffff
        self._state._set_value(jax.random.PRNGKey(self._seed % (2 ** 63)))
        return self

    def seed(self):
        s = int(time.time_ns()) & 0x7fff_ffff_ffff_ffff
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        from .tensor import Tensor
        raw = np.asarray(self._state._value).astype(np.uint32).view(np.uint8).copy()
        return Tensor._wrap(jnp.asarray(raw))

    def set_state(self, state):
        raw = np.asarray(state._value).astype(np.uint8)
        if raw.size != 8:
            raise RuntimeError("Expected a ByteTensor of 8 bytes (a torchlike generator state)")
        self._state._set_value(jnp.asarray(raw.view(np.uint32)))
        return self

    def next_key(self):
        """A fresh subkey; advances the state."""
        k = self._state._value
        new, sub = _split(k)
        self._state._set_value(new)
        return sub


@jax.jit
def _split(k):
    a, b = jax.random.split(k)
    return a, b


default_generator = Generator()


def manual_seed(seed):
    """Seed the default generator; returns it."""
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state):
    default_generator.set_state(state)


class fork_rng:
    """Context manager restoring the default generator's state on exit."""

    def __init__(self, devices=None, enabled=True, **kw):
        self.enabled = enabled

    def __enter__(self):
        self.state = get_rng_state()

    def __exit__(self, *a):
        if self.enabled:
            set_rng_state(self.state)


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


def draw(kind, shape, dtype, generator=None, args=(), params=()):
    """Draw a sample array of ``kind`` with ``shape``/``dtype``; advances the generator."""
    g = generator if generator is not None else default_generator
    new, x = _sampler(kind, tuple(shape), np.dtype(dtype), tuple(params))(g._state._value, *args)
    g._state._set_value(new)
    return x


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


_DRAW = {"uniform": _uniform, "normal": _normal, "randint": _randint, "bernoulli": _bernoulli, "perm": _perm,
         "exponential": _exponential, "geometric": _geometric, "cauchy": _cauchy, "lognormal": _lognormal,
         "multinomial": _multinomial, "poisson": _poisson}
