"""torch.distributed's key-value stores: ``Store``, ``HashStore`` (in-process), ``FileStore`` (one file shared by
the processes, locked with ``fcntl.flock``), ``PrefixStore``; ``TCPStore`` lives in ``_tcp_store``.

Values are bytes (``set`` takes ``str`` or ``bytes``; ``get`` returns ``bytes``); ``add`` keeps the decimal text of
an integer; ``get``/``wait`` block until the keys exist or the store's timeout passes (torch's exception types and
messages: ``DistStoreError("Wait timeout")`` ...).

>>> import torchlike.distributed as dist
>>> s = dist.HashStore()
>>> s.set("a", "x"); s.get("a"), s.add("n", 2), s.add("n", 3), s.num_keys()
(b'x', 2, 5, 2)
>>> s.compare_set("a", "x", "y"), dist.PrefixStore("p", s).add("k", 1), s.check(["p/k"])
(b'y', 1, True)
"""
from __future__ import annotations

import datetime
import fcntl
import json
import os
import threading
import time

from ._errors import DistStoreError

__all__ = ["FileStore", "HashStore", "PrefixStore", "Store"]

_DEFAULT_TIMEOUT = datetime.timedelta(seconds=300)


def _as_bytes(value, method="set", sig="arg0: str, arg1: str"):
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    raise TypeError(f"{method}(): incompatible function arguments. The following argument types are supported:\n"
                    f"    1. (self: torch._C._distributed_c10d.Store, {sig}) -> None\n")


def _as_int(b):
    try:
        return int(b.decode())
    except (UnicodeDecodeError, ValueError):
        raise ValueError("stoll") from None


def _cas(table, key, expected, desired):
    """torch's compare_set on a dict: returns the value the key holds afterwards (or ``expected`` when absent)."""
    cur = table.get(key)
    if cur is None:
        if expected == b"":
            table[key] = desired
            return desired
        return expected
    if cur == expected:
        table[key] = desired
        return desired
    return cur


class Store:
    """The key-value store interface every store implements (abstract here).

    >>> from torchlike.distributed import HashStore
    >>> s = HashStore(); s.set("k", b"v"); s.multi_get(["k"])
    [b'v']
    """

    def __init__(self, *args, **kwargs):
        self._timeout = _DEFAULT_TIMEOUT

    @property
    def timeout(self):
        return self._timeout

    def set_timeout(self, timeout):
        if not isinstance(timeout, datetime.timedelta):
            raise TypeError(f"set_timeout(): expected a datetime.timedelta, got {type(timeout).__name__}")
        self._timeout = timeout

    def has_extended_api(self):
        return True

    def multi_get(self, keys):
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values):
        for k, v in zip(keys, values):
            self.set(k, v)

    def clone(self):
        return self


class _DictStore(Store):
    """A store over a dict guarded by a condition variable (HashStore; TCPStore's server)."""

    def __init__(self):
        super().__init__()
        self._data = {}
        self._cv = threading.Condition()

    def _wait_for(self, keys, timeout_s):
        deadline = time.monotonic() + timeout_s
        with self._cv:
            while not all(k in self._data for k in keys):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cv.wait(left)
        return True

    def set(self, key, value):
        v = _as_bytes(value)
        with self._cv:
            self._data[key] = v
            self._cv.notify_all()

    def get(self, key):
        if not self._wait_for([key], self._timeout.total_seconds()):
            raise DistStoreError("Wait timeout")
        with self._cv:
            return self._data[key]

    def add(self, key, amount):
        with self._cv:
            n = (_as_int(self._data[key]) if key in self._data else 0) + int(amount)
            self._data[key] = str(n).encode()
            self._cv.notify_all()
            return n

    def append(self, key, value):
        v = _as_bytes(value, "append")
        with self._cv:
            self._data[key] = self._data.get(key, b"") + v
            self._cv.notify_all()

    def compare_set(self, key, expected_value, desired_value):
        with self._cv:
            out = _cas(self._data, key, _as_bytes(expected_value, "compare_set"),
                       _as_bytes(desired_value, "compare_set"))
            self._cv.notify_all()
            return out

    def wait(self, keys, timeout=None):
        t = (timeout or self._timeout).total_seconds()
        if not self._wait_for(list(keys), t):
            raise DistStoreError("Wait timeout")

    def check(self, keys):
        with self._cv:
            return all(k in self._data for k in keys)

    def delete_key(self, key):
        with self._cv:
            return self._data.pop(key, None) is not None

    def num_keys(self):
        with self._cv:
            return len(self._data)

    def list_keys(self):
        with self._cv:
            return list(self._data)


class HashStore(_DictStore):
    """A thread-safe store inside one process (threads of one job share it).

    >>> HashStore().num_keys()
    0
    """


class FileStore(Store):
    """A store in the file ``file_name``, shared by the processes that open it (``world_size`` of them, if given;
    the last to go removes the file). Every operation locks the file, reads its entries and rewrites them.

    >>> import os, tempfile
    >>> s = FileStore(os.path.join(tempfile.mkdtemp(), "store"), 1)
    >>> s.set("a", "1"); s.get("a"), s.add("a", 4), s.num_keys()
    (b'1', 5, 2)
    """

    _REFCOUNT = "refcount/"

    def __init__(self, file_name, world_size=-1):
        super().__init__()
        self.path = file_name
        self.world_size = world_size
        open(file_name, "a").close()
        self._update(lambda t: t.__setitem__(self._REFCOUNT, str(_as_int(t.get(self._REFCOUNT, b"0")) + 1).encode()))
        self._closed = False

    # each op: lock, read the whole table, maybe change it, write it back
    def _update(self, fn, write=True):
        with open(self.path, "r+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                text = f.read()
                table = {k: v.encode("latin-1") for k, v in json.loads(text).items()} if text else {}
                out = fn(table)
                if write:
                    f.seek(0)
                    f.truncate()
                    f.write(json.dumps({k: v.decode("latin-1") for k, v in table.items()}))
                    f.flush()
                return out
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def _read(self, fn):
        return self._update(fn, write=False)

    def _poll(self, keys, timeout_s):
        deadline = time.monotonic() + timeout_s
        while not self._read(lambda t: all(k in t for k in keys)):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def set(self, key, value):
        v = _as_bytes(value)
        self._update(lambda t: t.__setitem__(key, v))

    def get(self, key):
        t = self._timeout.total_seconds()
        if not self._poll([key], t):
            raise RuntimeError(f"Timeout waiting for key: {key} after {int(round(t * 1000))} ms")
        return self._read(lambda t: t[key])

    def add(self, key, amount):
        def fn(t):
            n = (_as_int(t[key]) if key in t else 0) + int(amount)
            t[key] = str(n).encode()
            return n
        return self._update(fn)

    def append(self, key, value):
        v = _as_bytes(value, "append")
        self._update(lambda t: t.__setitem__(key, t.get(key, b"") + v))

    def compare_set(self, key, expected_value, desired_value):
        e, d = _as_bytes(expected_value, "compare_set"), _as_bytes(desired_value, "compare_set")
        return self._update(lambda t: _cas(t, key, e, d))

    def wait(self, keys, timeout=None):
        if not self._poll(list(keys), (timeout or self._timeout).total_seconds()):
            raise RuntimeError("Wait timeout")

    def check(self, keys):
        return self._read(lambda t: all(k in t for k in keys))

    def delete_key(self, key):
        self._update(lambda t: t.pop(key, None))
        return True  # torch's FileStore answers True, whether or not the key was there

    def num_keys(self):
        return self._read(len)

    def list_keys(self):
        return self._read(list)

    def __del__(self):
        if getattr(self, "_closed", True):
            return
        self._closed = True
        try:
            left = self._update(lambda t: _decref(t, self._REFCOUNT))
            if left == 0 and self.world_size != -1:
                os.remove(self.path)
        except Exception:  # noqa: BLE001 - at interpreter teardown builtins may be gone
            pass


def _decref(t, key):
    n = _as_int(t.get(key, b"1")) - 1
    t[key] = str(n).encode()
    return n


class PrefixStore(Store):
    """``store`` with every key put under ``prefix/``.

    >>> s = HashStore(); p = PrefixStore("trainer", s); p.set("x", "1"); s.get("trainer/x")
    b'1'
    """

    def __init__(self, prefix, store):
        super().__init__()
        self._prefix, self.underlying_store = prefix, store

    def _k(self, key):
        return f"{self._prefix}/{key}"

    @property
    def timeout(self):
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        self.underlying_store.set_timeout(timeout)

    def set(self, key, value):
        self.underlying_store.set(self._k(key), value)

    def get(self, key):
        return self.underlying_store.get(self._k(key))

    def add(self, key, amount):
        return self.underlying_store.add(self._k(key), amount)

    def append(self, key, value):
        self.underlying_store.append(self._k(key), value)

    def compare_set(self, key, expected_value, desired_value):
        return self.underlying_store.compare_set(self._k(key), expected_value, desired_value)

    def wait(self, keys, timeout=None):
        self.underlying_store.wait([self._k(k) for k in keys], *([timeout] if timeout is not None else []))

    def check(self, keys):
        return self.underlying_store.check([self._k(k) for k in keys])

    def delete_key(self, key):
        return self.underlying_store.delete_key(self._k(key))

    def num_keys(self):
        return self.underlying_store.num_keys()

    def list_keys(self):
        return self.underlying_store.list_keys()
