"""``recv(tensor)`` from any source. XLA's point-to-point transfer (a ``ppermute`` between the two ranks) needs
both ranks to know the pair, so every send announces itself in the key-value store of JAX's coordination
service (``torchlike_p2p/<dst>/<src>/<n>``, n counting the sends from src to dst); a receive without ``src``
waits for the first announcement addressed to it that it has not consumed, then runs that pair's transfer.
Receives with ``src`` count too, so announcements are matched in order per sender.
"""
from __future__ import annotations

import time

from ._process_group import _state

__all__ = ["announce_send", "consumed", "pick_source"]

_SENT: dict = {}   # dst -> sends from this rank to dst so far
_RECVD: dict = {}  # src -> receives by this rank from src so far


def _client():
    if _state["world"] <= 1:
        return None
    try:
        from jax._src import distributed as jd  # lazy: JAX's runtime client, only with several processes
        return jd.global_state.client
    except Exception:  # noqa: BLE001 - no runtime: single process
        return None


def _key(dst, src, n):
    return f"torchlike_p2p/{dst}/{src}/{n}"


def announce_send(me, dst):
    """Called by every send before its transfer runs."""
    n = _SENT.get(dst, 0)
    _SENT[dst] = n + 1
    c = _client()
    if c is not None:
        c.key_value_set(_key(dst, me, n), "1")


def consumed(me, src):
    """Called by every receive from ``src`` once its transfer is done: forget that announcement."""
    n = _RECVD.get(src, 0)
    _RECVD[src] = n + 1
    c = _client()
    if c is not None:
        try:
            c.key_value_delete(_key(me, src, n))
        except Exception:  # noqa: BLE001 - only housekeeping
            pass


def pick_source(me, ranks, name="recv"):
    """The global rank of the first pending sender to ``me`` among ``ranks`` (waits up to the group timeout)."""
    c = _client()
    if c is None:
        raise RuntimeError(f"torchlike.distributed.{name} from any source needs a multi-process group")
    prefix = f"torchlike_p2p/{me}/"
    total = _state["timeout"].total_seconds()
    deadline = time.monotonic() + total
    delay = 0.0005
    while True:
        pending = []
        for k, _ in c.key_value_dir_get(prefix):
            parts = k.rsplit("/", 2)
            src, n = int(parts[-2]), int(parts[-1])
            if src in ranks and n == _RECVD.get(src, 0):
                pending.append(src)
        if pending:
            return min(pending)
        if time.monotonic() > deadline:
            raise RuntimeError(f"Timed out waiting {int(round(total * 1000))}ms for {name} operation to complete")
        time.sleep(delay)
        delay = min(delay * 2, 0.02)
