"""torch's CPU random engine: MT19937 seeded like ``std::mt19937(seed)``, in torch's state layout.

The 624-word state and position live in numpy's MT19937 bit generator, which yields the same 32-bit
words as torch's engine; words are drawn in bulk with ``random_raw`` (never one Python call per
element).  ``MTEngine`` adds what torch's CPUGeneratorImpl keeps besides the words (the seed, the
cached second normal of the scalar Box-Muller path) and converts to and from torch's 5056-byte
``get_rng_state()`` layout.  The sampling kernels that turn words into values live in
``torchlike/_mt_kernels.py``.

>>> e = MTEngine(0)
>>> [int(w) for w in e.words(2)]
[2357136044, 2546248239]
"""
from __future__ import annotations

import os
import struct

import numpy as np

__all__ = ["MTEngine", "STATE_BYTES", "DEFAULT_SEED", "nondeterministic_seed"]

N = 624
STATE_BYTES = 5056  # sizeof(CPUGeneratorImplState): the legacy THGeneratorState (5048) + the float normal cache
DEFAULT_SEED = 67280421310721  # torch's default_rng_seed_val
_HEAD = struct.Struct("<QiiQ")  # the_initial_seed, left, seeded, next
_TAIL = struct.Struct("<dddi4xf?3x")  # normal_x, normal_y, normal_rho, normal_is_valid, float sample, valid


def nondeterministic_seed():
    """A 64-bit seed from the OS (what torch seeds its default generator with at start-up)."""
    return int.from_bytes(os.urandom(8), "little")


class MTEngine:
    """MT19937 words plus torch's generator bookkeeping (seed, normal caches).

    ``fresh`` marks the state right after seeding (torch's ``next`` is then 0, not 624).
    """

    __slots__ = ("bitgen", "seed", "fresh", "next_double_normal", "next_float_normal")

    def __init__(self, seed=DEFAULT_SEED):
        self.bitgen = np.random.MT19937()
        self.manual_seed(seed)

    def manual_seed(self, seed):
        self.seed = int(seed) & 0xFFFF_FFFF_FFFF_FFFF
        self.bitgen._legacy_seeding(self.seed & 0xFFFF_FFFF)  # std::mt19937 keeps the low 32 bits
        self.fresh = True
        self.next_double_normal = None
        self.next_float_normal = None

    # --- words ---------------------------------------------------------------------------------
    def words(self, n):
        """``n`` 32-bit words (torch's ``random()``) as uint64."""
        n = int(n)
        if n <= 0:
            return np.zeros((0,), np.uint64)
        self.fresh = False
        return self.bitgen.random_raw(n)

    def words64(self, n):
        """``n`` 64-bit draws (torch's ``random64()``: the first word is the high half)."""
        w = self.words(2 * n)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    # --- torch's byte layout -------------------------------------------------------------------
    def get_bytes(self):
        st = self.bitgen.state["state"]
        key, pos = np.asarray(st["key"], np.uint32), int(st["pos"])
        left = 1 if pos >= N else N + 1 - pos
        nxt = 0 if self.fresh else pos
        head = _HEAD.pack(self.seed, left, 1, nxt)
        dn, fn = self.next_double_normal, self.next_float_normal
        tail = _TAIL.pack(0.0, 0.0 if dn is None else dn, 0.0, dn is not None, 0.0 if fn is None else fn,
                          fn is not None)
        return head + key.astype("<u8").tobytes() + tail

    def set_bytes(self, raw):
        raw = bytes(raw)
        if len(raw) != STATE_BYTES:  # torch 2.13 no longer takes the legacy 5048-byte layout
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input RNG "
                               f"state size to be {len(raw)}")
        seed, left, seeded, nxt = _HEAD.unpack_from(raw, 0)
        if not (seeded and 0 < left <= N and nxt <= N):
            raise RuntimeError("Invalid mt19937 state")
        key = np.frombuffer(raw, "<u8", N, _HEAD.size).astype(np.uint32)
        _, y, _, valid, f, fvalid = _TAIL.unpack_from(raw, _HEAD.size + 8 * N)
        self.bitgen.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": N if left == 1 else nxt}}
        self.seed = seed
        self.fresh = left == 1 and nxt == 0
        self.next_double_normal = y if valid else None
        self.next_float_normal = float(np.float32(f)) if fvalid else None

    def copy_from(self, other):
        self.bitgen.state = other.bitgen.state
        self.seed, self.fresh = other.seed, other.fresh
        self.next_double_normal, self.next_float_normal = other.next_double_normal, other.next_float_normal
