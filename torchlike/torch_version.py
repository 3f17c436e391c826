"""``torch.__version__``: a string that compares as a version (torch's ``TorchVersion``).

Scripts compare it with strings (``torch.__version__ >= "2.2"``) and tuples (``>= (1, 12)``); as a plain string "2.13.0" would sort before "2.2". A comparison parses both sides as release
numbers (pre-release and local parts ordered as packaging orders them) and falls back to string order when
either side is not a version.

>>> from torchlike.torch_version import TorchVersion
>>> v = TorchVersion("2.13.0+cpu")
>>> v >= "2.2", v > (1, 12), v < (2, 14), v == "2.13.0+cpu", isinstance(v, str)
(True, True, True, True, True)
"""
from __future__ import annotations

import re
from collections.abc import Iterable

from .version import __version__ as internal_version

__all__ = ["TorchVersion"]

_VERSION = re.compile(r"^\s*v?(\d+(?:\.\d+)*)(?:[-_.]?(a|alpha|b|beta|rc|c|pre|preview)[-_.]?(\d*))?"
                      r"(?:[-_.]?post[-_.]?(\d*))?(?:[-_.]?dev[-_.]?(\d*))?(?:\+([a-z0-9.]+))?\s*$", re.I)
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "rc": 2, "c": 2, "pre": 2, "preview": 2}
_INF = float("inf")


def _key(text):
    """An ordering key for version string ``text`` (packaging's order for the common forms), or None."""
    m = _VERSION.match(text)
    if m is None:
        return None
    rel, pre, pre_n, post, dev, local = m.groups()
    release = tuple(int(p) for p in rel.split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    # (a dev release of X sorts before X's pre-releases; a final release after them)
    pre_key = (_PRE[pre.lower()], int(pre_n or 0)) if pre else ((-_INF, 0) if dev is not None and post is None
                                                              else (_INF, 0))
    post_key = int(post or 0) if post is not None else -_INF
    dev_key = int(dev or 0) if dev is not None else _INF
    local_key = tuple((1, int(p), "") if p.isdigit() else (0, 0, p) for p in re.split(r"[.]", local)) \
        if local else ()
    return release, pre_key, post_key, dev_key, local_key


def _other_key(other):
    if isinstance(other, str):
        return _key(other)
    if isinstance(other, Iterable):
        return _key(".".join(str(p) for p in other))
    return None  # (packaging's own Version too: torch knows only its vendored copy's, so ``>`` raises TypeError)


class TorchVersion(str):
    """A version string that compares with strings, tuples and packaging ``Version`` objects as versions."""

    __slots__ = ()

    def _cmp(self, other, method):
        a, b = _key(self), _other_key(other)
        if a is None or b is None:
            if isinstance(other, str):
                return getattr(str, method)(self, other)
            return NotImplemented
        return getattr(a, method)(b)

    def __gt__(self, other):
        return self._cmp(other, "__gt__")

    def __lt__(self, other):
        return self._cmp(other, "__lt__")

    def __ge__(self, other):
        return self._cmp(other, "__ge__")

    def __le__(self, other):
        return self._cmp(other, "__le__")

    def __eq__(self, other):
        return self._cmp(other, "__eq__")

    # (``!=`` stays str's, as in torch: only the five comparisons above are versioned)
    __hash__ = str.__hash__


__version__ = TorchVersion(internal_version)
