"""Reading torch's legacy (pre-1.6, non-zip) ``torch.save`` format.

The file is a run of pickles and raw bytes: the magic number, the protocol version (1001), a
system-info dict, the object pickle (tensors refer to storages by persistent id
``('storage', storage_type, key, location, numel, view_metadata)``), the list of storage keys, and
then, for each key in that order, an int64 element count followed by the storage's little-endian
bytes.  The small pickles are read with the same unpickler as the object (``weights_only`` rules
apply).  The even older tar format is refused with torch's message under ``weights_only``.

>>> import io, pickle, torchlike
>>> buf = io.BytesIO()
>>> for part in (MAGIC_NUMBER, PROTOCOL_VERSION, {}):
...     pickle.dump(part, buf, protocol=2)
>>> pickle.dump([1.5], buf, protocol=2); pickle.dump([], buf, protocol=2)
>>> _ = buf.seek(0)
>>> torchlike.load(buf)
[1.5]
"""
from __future__ import annotations

import pickletools
import struct
import tarfile

import numpy as np

from . import _weights_only


__all__ = ["legacy_load", "MAGIC_NUMBER", "PROTOCOL_VERSION"]

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001


def legacy_load(fh, device_for, weights_only, pickle_load_args):
    from . import serialization as ser  # lazy: serialization imports this module (torch.load's legacy branch)
    if _is_tar(fh):
        if weights_only:
            raise RuntimeError("Cannot use ``weights_only=True`` with files saved in the legacy .tar format. "
                               + _weights_only._UNSAFE_MESSAGE)
        raise RuntimeError("torchlike cannot read torch's legacy .tar checkpoints (torch < 0.4); re-save the file "
                           "with torch.save; see docs/differences.md")
    fh.seek(0)
    storages = {}   # key -> serialization._Storage (reads from the raw bytes once they are known)
    raw = {}        # key -> numpy array, filled after the object pickle

    def read(key, dt, numel):  # (numpy: _Storage.view arranges it on the host, then moves it)
        return raw[key][:numel]

    def persistent_load(pid):
        if not isinstance(pid, tuple):
            raise RuntimeError(f"saved_id must be a tuple, got {type(pid).__name__}")
        kind = _weights_only._ascii(pid[0])
        if kind == "module":
            return pid[1]
        if kind != "storage":
            raise RuntimeError(f"Unknown saved id type: {pid[0]}")
        storage_type, root_key, location, numel, view_metadata = pid[1:]
        st = storages.get(root_key)
        if st is None:
            dt = ser._storage_dtype(storage_type)
            st = storages[root_key] = ser._Storage(read, root_key, dt, device_for(_weights_only._ascii(location)),
                                                   numel)
        if view_metadata is not None:
            _view_key, offset, size = view_metadata
            return _OffsetStorage(st, offset)
        return st

    def small_pickle():
        return ser._unpickle(fh, None, weights_only, pickle_load_args)

    magic = small_pickle()
    if magic != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = small_pickle()
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    small_pickle()  # sys info
    # the storages' bytes follow the object pickle: scan it (statically) for each storage's type,
    # read the bytes, then unpickle it for real
    start = fh.tell()
    types = _storage_types_in(fh)
    keys = small_pickle()
    for key in keys:
        (n,) = struct.unpack("<q", fh.read(8))
        dt = ser._storage_dtype(ser.storage_types().get(types.get(key), None))
        np_dt = np.dtype(dt.np)
        data = fh.read(n * np_dt.itemsize)
        raw[key] = np.frombuffer(data, dtype=np_dt.newbyteorder("<")).astype(np_dt)
    end = fh.tell()
    fh.seek(start)
    result = ser._unpickle(fh, persistent_load, weights_only, pickle_load_args)
    fh.seek(end)
    return result


def _storage_types_in(fh):
    """{storage key: storage class name} from the persistent ids of the pickle at ``fh`` (nothing runs).

    A storage id is pushed as ``'storage', <GLOBAL torch XStorage>, key, ...``; memoized values are
    followed through BINPUT/BINGET.
    """
    memo, found, state, last, stype = {}, {}, 0, None, None
    for op, arg, _ in pickletools.genops(fh):
        if op.name in ("BINPUT", "LONG_BINPUT", "PUT"):
            memo[arg] = last
            continue
        if op.name == "GLOBAL":
            value = arg.split(" ", 1)[1]
        elif op.name in ("BINGET", "LONG_BINGET", "GET"):
            value = memo.get(arg)
        elif op.name in ("BINUNICODE", "SHORT_BINSTRING", "BINSTRING", "UNICODE", "SHORT_BINUNICODE"):
            value = arg.decode("ascii", "replace") if isinstance(arg, bytes) else arg
        else:
            value = (op.name, arg)
        last = value
        if state == 1:
            stype, state = value, 2
        elif state == 2:
            found[value] = stype
            state = 0
        elif value == "storage":
            state = 1
    return found


class _OffsetStorage:
    """A storage view (old files): offsets of tensors over it are relative to ``offset``."""

    def __init__(self, base, offset):
        self.base, self.offset = base, offset

    def view(self, offset, size, stride):
        return self.base.view(self.offset + offset, size, stride)


def _is_tar(fh):
    pos = fh.tell()
    try:
        return tarfile.is_tarfile(fh)
    except Exception:
        return False
    finally:
        fh.seek(pos)
