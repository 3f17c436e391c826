"""Rendezvous through a store (``init_process_group(store=...)``) or a file (``file://``).

store: rank 0 publishes the address of JAX's distributed coordinator under a key of the store; the others read
it (blocking for the store's timeout). file:// rendezvous: rank 0 publishes the address of JAX's distributed coordinator in a file on a shared
file system; the other ranks wait for it. As with torch's FileStore, the file must be new (or empty) for
each job, and rank 0 removes it when the process exits."""
from __future__ import annotations

import atexit
import json
import os
import socket
import time
import uuid
from . import _runtime

__all__ = ["through_file", "through_store"]


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _my_ip():
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def through_file(path, rank, world_size, timeout_s):
    """(address, port) of the coordinator: published by rank 0 at ``path``, read by the others."""
    if not path:
        raise ValueError("Error initializing torch.distributed using file:// rendezvous: path missing")
    if world_size == 1:
        return "127.0.0.1", "0"
    if rank == 0:
        record = {"host": socket.gethostname(), "ip": _my_ip(), "port": _free_port(), "world_size": world_size,
                  "job": uuid.uuid4().hex}
        tmp = f"{path}.{record['job']}.tmp"
        try:
            with open(tmp, "w") as f:
                json.dump(record, f)
            os.replace(tmp, path)  # the others never see a half-written file
        except OSError as e:
            _remove(tmp)
            raise RuntimeError(f"file:// rendezvous: cannot write {path}: {e.strerror}") from None
        atexit.register(_remove, path)
    else:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                with open(path) as f:
                    record = json.load(f)
                break
            except (OSError, ValueError):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"file:// rendezvous: rank {rank} timed out after {timeout_s:.0f} s waiting "
                                       f"for rank 0 to write {path}") from None
                time.sleep(0.05)
        if record.get("world_size") != world_size:
            raise RuntimeError(f"file:// rendezvous: {path} was written for world_size={record.get('world_size')}, "
                               f"this rank has world_size={world_size} (a stale file from another job? torch "
                               f"requires a new file per job)")
    same_host = record["host"] == socket.gethostname()
    return ("127.0.0.1" if same_host else record["ip"]), str(record["port"])


_STORE_KEY = "torchlike/coordinator"


def through_store(store, rank, world_size):
    """(address, port) of the coordinator, exchanged through ``store`` (rank 0 writes it, the others wait)."""
    if world_size == 1:
        return "127.0.0.1", "0"
    if _runtime.state["started"]:
        addr, _, port = _runtime.state["addr"].rpartition(":")
        return addr, port
    if rank == 0:
        store.set(_STORE_KEY, json.dumps({"host": socket.gethostname(), "ip": _my_ip(), "port": _free_port()}))
    record = json.loads(store.get(_STORE_KEY).decode())
    same_host = record["host"] == socket.gethostname()
    return ("127.0.0.1" if same_host else record["ip"]), str(record["port"])
