"""torch.distributed.TCPStore: a key-value store served by the master process over TCP.

The master (``is_master=True``) runs a small threaded server in the background holding a ``HashStore``-like
table; every TCPStore (the master's too) is a client with one connection. The wire format is one JSON object
per line (values base64), request then reply; ``get``/``wait`` block on the server until the keys exist or the
client's timeout passes. It is only the rendezvous / coordination channel: no tensor data goes through it
(collectives are XLA collectives). It does not use JAX's coordination service, because a TCPStore usually
exists before ``init_process_group`` starts JAX's runtime (it is what the ranks meet through).

>>> import torchlike.distributed as dist
>>> s = dist.TCPStore("127.0.0.1", 0, 1, True)
>>> s.set("a", "b"); s.get("a"), s.num_keys(), s.port > 0
(b'b', 2, True)
"""
from __future__ import annotations

import base64
import datetime
import errno
import json
import socket
import socketserver
import threading
import time

from ._errors import DistNetworkError, DistStoreError
from ._store import Store, _as_bytes, _DictStore

__all__ = ["TCPStore"]

_INIT_KEY = "init/"


def _b64(b):
    return base64.b64encode(b).decode()


def _unb64(s):
    return base64.b64decode(s.encode())


class _Handler(socketserver.StreamRequestHandler):
    def handle(self):
        table = self.server.table
        for line in self.rfile:
            req = json.loads(line)
            try:
                out = _serve(table, req)
                reply = {"ok": out}
            except ValueError as e:
                reply = {"err": "ValueError", "msg": str(e)}
            except DistStoreError as e:
                reply = {"err": "DistStoreError", "msg": str(e)}
            self.wfile.write((json.dumps(reply) + "\n").encode())
            self.wfile.flush()


def _serve(table, req):
    op, key = req["op"], req.get("key")
    if op == "set":
        table.set(key, _unb64(req["value"]))
        return None
    if op == "get":
        if not table._wait_for([key], req["timeout"]):
            raise DistStoreError("timeout")
        return _b64(table._data[key])
    if op == "add":
        return table.add(key, req["amount"])
    if op == "append":
        table.append(key, _unb64(req["value"]))
        return None
    if op == "compare_set":
        return _b64(table.compare_set(key, _unb64(req["expected"]), _unb64(req["desired"])))
    if op == "wait":
        if not table._wait_for(req["keys"], req["timeout"]):
            raise DistStoreError("timeout")
        return None
    if op == "check":
        return table.check(req["keys"])
    if op == "delete_key":
        return table.delete_key(key)
    if op == "num_keys":
        return table.num_keys()
    if op == "list_keys":
        return [k for k in table.list_keys() if k != _INIT_KEY]
    raise ValueError(f"unknown store operation {op}")


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = False


class TCPStore(Store):
    """A store served over TCP by the master at ``host_name:port`` (``port=0``: a free port, see ``.port``).

    ``world_size`` clients (the master included) count themselves in; with ``wait_for_workers`` the master waits
    for all of them. See the module docstring for an example.
    """

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=datetime.timedelta(seconds=300),
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):
        super().__init__()
        self._timeout = timeout
        self.host = host_name
        self._server = None
        if is_master:
            try:
                self._server = _Server(("", int(port)), _Handler)
            except OSError as e:
                code = e.errno or 0
                name = errno.errorcode.get(code, "UNKNOWN")
                raise DistNetworkError(f"The server socket has failed to listen on any local network address. "
                                       f"port: {port}, useIpv6: false, code: -{code}, name: {name}, message: "
                                       f"{(e.strerror or '').lower()}") from None
            self._server.table = _DictStore()
            port = self._server.server_address[1]
            threading.Thread(target=self._server.serve_forever, name="torchlike-tcpstore", daemon=True).start()
        self.port = int(port)
        self.libuvBackend = bool(use_libuv)
        self._lock = threading.Lock()
        self._sock = self._connect(host_name, self.port, timeout.total_seconds())
        self._file = self._sock.makefile("rb")
        self._call("add", key=_INIT_KEY, amount=1)
        if is_master and wait_for_workers and world_size:
            self._wait_workers(int(world_size))

    @staticmethod
    def _connect(host, port, timeout_s):
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                s = socket.create_connection((host, port), timeout=max(0.1, min(1.0, timeout_s)))
                s.settimeout(None)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return s
            except OSError:
                if time.monotonic() > deadline:
                    raise DistNetworkError(f"The client socket has timed out after {int(timeout_s * 1000)}ms while "
                                           f"trying to connect to ({host}, {port}).") from None
                time.sleep(0.05)

    def _wait_workers(self, world_size):
        t = self._timeout.total_seconds()
        deadline = time.monotonic() + t
        while True:
            n = int(self._server.table.get(_INIT_KEY))
            if n >= world_size:
                return
            if time.monotonic() > deadline:
                raise DistStoreError(f"Timed out after {int(t)} seconds waiting for clients. {n}/{world_size} "
                                     f"clients joined.")
            time.sleep(0.01)

    def _call(self, op, **kw):
        msg = (json.dumps({"op": op, **kw}) + "\n").encode()
        with self._lock:
            try:
                self._sock.sendall(msg)
                line = self._file.readline()
            except OSError as e:
                raise DistNetworkError(f"Failed to recv, got 0 bytes. Connection was likely closed. Did the remote "
                                       f"server shutdown or crash? ({e})") from None
        if not line:
            raise DistNetworkError("Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server "
                                   "shutdown or crash?")
        reply = json.loads(line)
        if "err" in reply:
            if reply["err"] == "ValueError":
                raise ValueError(reply["msg"])
            raise DistStoreError(reply["msg"])
        return reply["ok"]

    def _timed(self, names, timeout, op, **kw):
        t = (timeout or self._timeout).total_seconds()
        try:
            return self._call(op, timeout=t, **kw)
        except DistStoreError:
            raise DistStoreError(f"wait timeout after {int(round(t * 1000))}ms, keys: "
                                 f"{', '.join('/' + k for k in names)}") from None

    def set(self, key, value):
        self._call("set", key=key, value=_b64(_as_bytes(value)))

    def get(self, key):
        return _unb64(self._timed([key], None, "get", key=key))

    def add(self, key, amount):
        return int(self._call("add", key=key, amount=int(amount)))

    def append(self, key, value):
        self._call("append", key=key, value=_b64(_as_bytes(value, "append")))

    def compare_set(self, key, expected_value, desired_value):
        return _unb64(self._call("compare_set", key=key, expected=_b64(_as_bytes(expected_value, "compare_set")),
                                 desired=_b64(_as_bytes(desired_value, "compare_set"))))

    def wait(self, keys, timeout=None):
        self._timed(list(keys), timeout, "wait", keys=list(keys))

    def check(self, keys):
        return bool(self._call("check", keys=list(keys)))

    def delete_key(self, key):
        return bool(self._call("delete_key", key=key))

    def num_keys(self):
        return int(self._call("num_keys"))

    def list_keys(self):
        return list(self._call("list_keys"))

    def __del__(self):
        try:
            self._sock.close()
            if self._server is not None:  # no blocking shutdown(): at exit the serving thread may be frozen
                self._server._BaseServer__shutdown_request = True
                self._server.server_close()
        except Exception:  # noqa: BLE001 - interpreter teardown
            pass
