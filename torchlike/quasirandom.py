"""torch.quasirandom: ``SobolEngine``, (scrambled) Sobol low-discrepancy sequences.

The direction numbers are Joe and Kuo's (search criterion D(6), dimensions up to 21201), the table torch
compiles in; scipy (a dependency of jax) ships the same table as ``scipy/stats/_sobol_direction_numbers.npz``.
The state is host int64 (torch keeps it on the CPU too) and the draws are computed with numpy: the same
bit operations as torch's ``_sobol_engine_*`` kernels, so the points, the scrambling drawn from
``torch.randint`` with the engine's generator, and ``fast_forward`` all match torch bit for bit."""
from __future__ import annotations

import functools
import importlib.util
import os

import numpy as np

from . import _dtype
from ._creation import from_numpy
from ._ops.random_ops import randint
from ._random import Generator

__all__ = ["SobolEngine"]


@functools.lru_cache(maxsize=1)
def _direction_table():
    spec = importlib.util.find_spec("scipy")
    path = os.path.join(spec.submodule_search_locations[0], "stats", "_sobol_direction_numbers.npz")
    with np.load(path) as table:
        return table["poly"], table["vinit"]


def _initial_state(dimension, maxbit):
    """torch's ``_sobol_engine_initialize_state_``: Bratley and Fox's recurrence from the initial direction
    numbers, each column then scaled by ``2**(maxbit - 1 - column)``."""
    poly, vinit = _direction_table()
    v = np.zeros((dimension, maxbit), dtype=np.int64)
    v[0, :] = 1
    for d in range(1, dimension):
        p = int(poly[d])
        m = p.bit_length() - 1
        v[d, :m] = vinit[d, :m]
        for j in range(m, maxbit):
            newv = int(v[d, j - m])
            pow2 = 1
            for k in range(m):
                pow2 <<= 1
                if (p >> (m - 1 - k)) & 1:
                    newv ^= pow2 * int(v[d, j - k - 1])
            v[d, j] = newv
    return v * (np.int64(1) << np.arange(maxbit - 1, -1, -1, dtype=np.int64))


def _rightmost_zero(n):
    """Bit positions of the rightmost zero bit of each of ``n`` (an int64 array)."""
    low = ~n & (n + 1)  # the rightmost zero bit, alone
    return np.log2(low.astype(np.float64)).astype(np.int64)


def _scramble_state(state, ltm, maxbit):
    """torch's ``_sobol_engine_scramble_``: each direction number multiplied (over GF(2)) by the dimension's
    random lower-triangular matrix with unit diagonal."""
    ltm = ltm.copy()
    idx = np.arange(maxbit)
    ltm[:, idx, idx] = 1
    bits = (state[:, :, None] >> idx) & 1  # (dim, maxbit: j, maxbit: k)
    # ltm row p (columns weighted 2**(maxbit-1-c)), bit k of it is ltm[d, p, maxbit-1-k]
    lbits = ltm[:, :, ::-1]  # (dim, p, k)
    t1 = np.einsum("djk,dpk->djp", bits, lbits) % 2
    weights = np.int64(1) << np.arange(maxbit - 1, -1, -1, dtype=np.int64)  # p = maxbit-1 gets 1
    return (t1 * weights).sum(-1).astype(np.int64)


class SobolEngine:
    r"""An engine for generating (scrambled) Sobol sequences, as ``torch.quasirandom.SobolEngine``.

    Args:
        dimension (int): the dimensionality of the sequence, in ``[1, 21201]``.
        scramble (bool): produce scrambled Sobol sequences (a random linear matrix scramble and a digital
            shift drawn with ``torch.randint``). Default ``False``.
        seed (int, optional): seed of the scrambling generator; ``None`` draws from the default generator.
    """

    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension, scramble=False, seed=None):
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError("Supported range of dimensionality "
                             f"for SobolEngine is [1, {self.MAXDIM}]")
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        self._state = _initial_state(dimension, self.MAXBIT)
        if not self.scramble:
            self._shift = np.zeros(dimension, dtype=np.int64)
        else:
            self._scramble()
        self._quasi = self._shift.copy()
        # torch divides in the default dtype of construction time (float32 rounds a scrambled shift)
        first_dtype = np.float32 if _dtype.get_default_dtype() == _dtype.float32 else np.float64
        self._first_point = self._shift.astype(first_dtype)[None, :] * first_dtype(1.0 / 2 ** self.MAXBIT)
        self.num_generated = 0

    @property
    def sobolstate(self):
        """The direction numbers, an int64 ``(dimension, MAXBIT)`` tensor."""
        return from_numpy(self._state.copy())

    @property
    def shift(self):
        """The digital shift (zeros unless scrambled), an int64 ``(dimension,)`` tensor."""
        return from_numpy(self._shift.copy())

    @property
    def quasi(self):
        """The current point as integers, an int64 ``(dimension,)`` tensor."""
        return from_numpy(self._quasi.copy())

    def _scramble(self):
        g = None
        if self.seed is not None:
            g = Generator()
            g.manual_seed(self.seed)
        shift_ints = randint(2, (self.dimension, self.MAXBIT), generator=g).numpy()
        self._shift = shift_ints @ (np.int64(1) << np.arange(self.MAXBIT, dtype=np.int64))
        ltm = np.tril(randint(2, (self.dimension, self.MAXBIT, self.MAXBIT), generator=g).numpy())
        self._state = _scramble_state(self._state, ltm, self.MAXBIT)

    def _advance(self, n, start):
        """The next ``n`` integer points after ``self._quasi`` (steps numbered from ``start``), updating it."""
        if n <= 0:
            return np.zeros((0, self.dimension), dtype=np.int64)
        cols = self._state[:, _rightmost_zero(np.arange(start, start + n, dtype=np.int64))].T  # (n, dim)
        points = np.bitwise_xor.accumulate(cols, axis=0) ^ self._quasi
        self._quasi = points[-1].copy()
        return points

    def draw(self, n=1, out=None, dtype=None):
        r"""Draw the next ``n`` points of the sequence, an ``(n, dimension)`` tensor of ``dtype`` (default:
        the default dtype); the result is written into ``out`` when given."""
        if dtype is None:
            dtype = _dtype.get_default_dtype()
        if dtype not in (_dtype.float32, _dtype.float64):
            raise NotImplementedError(f'"_sobol_engine_draw" not implemented for \'{_dtype._CAP[dtype.name]}\'')
        np_dtype = np.float32 if dtype == _dtype.float32 else np.float64
        scale = np_dtype(1.0 / 2 ** self.MAXBIT)
        if self.num_generated == 0:
            rest = self._advance(n - 1, 0).astype(np_dtype) * scale
            points = np.concatenate([self._first_point.astype(np_dtype), rest], axis=0)
        else:
            points = self._advance(n, self.num_generated - 1).astype(np_dtype) * scale
        self.num_generated += n
        result = from_numpy(points).to(dtype)
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m, out=None, dtype=None):
        r"""Draw the next ``2**m`` points; the total drawn must stay a power of 2 (Sobol balance)."""
        n = 2 ** m
        total_n = self.num_generated + n
        if not (total_n & (total_n - 1) == 0):
            raise ValueError("The balance properties of Sobol' points require "
                             f"n to be a power of 2. {self.num_generated} points have been "
                             f"previously generated, then: n={self.num_generated}+2**{m}={total_n}. "
                             "If you still want to do this, please use "
                             "'SobolEngine.draw()' instead.")
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self):
        r"""Reset the engine to its first point."""
        self._quasi = self._shift.copy()
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        r"""Skip the next ``n`` points, as drawing them would."""
        if self.num_generated == 0:
            self._advance(n - 1, 0)
        else:
            self._advance(n, self.num_generated - 1)
        self.num_generated += n
        return self

    def __repr__(self):
        fmt_string = [f"dimension={self.dimension}"]
        if self.scramble:
            fmt_string += ["scramble=True"]
        if self.seed is not None:
            fmt_string += [f"seed={self.seed}"]
        return self.__class__.__name__ + "(" + ", ".join(fmt_string) + ")"
