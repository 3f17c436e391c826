"""Point-to-point ``send``/``recv``/``isend``/``irecv``: a 2-device ``ppermute`` program both ranks run.

``recv`` without ``src`` receives from whichever rank announced a send to this one first (``_p2p_any``).
"""
from __future__ import annotations

from . import _p2p_any
from ._process_group import ProcessGroup, _group, _state
from ._programs import _done, _elementwise, _put, _x

__all__ = ["irecv", "isend", "recv", "send"]


def _p2p(tensor, peer, group, sending):
    """send/recv: a 2-device ppermute program that the sender and the receiver both run."""
    import jax
    g = _group(group)
    me = g.ranks[g.rank()] if g.rank() >= 0 else _state["rank"]
    peer_g = peer
    if peer_g == me:
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of "
                         "the current process.")
    src, dst = (me, peer_g) if sending else (peer_g, me)
    if sending:
        _p2p_any.announce_send(me, dst)
    pair = _pair_group(src, dst)
    x = _x(tensor)
    i_src, i_dst = pair.ranks.index(src), pair.ranks.index(dst)
    return _elementwise("send" if sending else "recv", "SEND" if sending else "RECV", pair, x,
                        lambda a: jax.lax.ppermute(a, "r", [(i_src, i_dst)]), ("p2p", i_src, i_dst))


_PAIRS: dict = {}


def _pair_group(a, b):
    key = (min(a, b), max(a, b))
    if key not in _PAIRS:
        _PAIRS[key] = ProcessGroup(key, _state["backend"])
    return _PAIRS[key]


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst`` (which must call ``recv`` with the same shape and dtype)."""
    _done(_p2p(tensor, dst, group, True), False)


def _recv_src(src, group, group_src, name):
    """The global rank to receive from: ``src``, ``group_src`` in ``group``, or (both None) the first pending
    sender (``_p2p_any``)."""
    g = _group(group)
    if src is None and group_src is not None:
        src = g.ranks[group_src]
    if src is None:
        me = _state["rank"]
        src = _p2p_any.pick_source(me, [r for r in g.ranks if r != me], name)
    return src


def _received(tensor, src):
    def finish(out):
        _put(tensor, out)
        _p2p_any.consumed(_state["rank"], src)
    return finish


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (None: from whichever rank sends to this one first); returns
    the sender's rank."""
    src = _recv_src(src, group, group_src, "recv")
    _done(_p2p(tensor, src, group, False), False, _received(tensor, src))
    return src


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    return _done(_p2p(tensor, dst, group, True), True)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Asynchronous ``recv`` (without ``src`` it first waits for a sender to announce itself)."""
    src = _recv_src(src, group, group_src, "irecv")
    return _done(_p2p(tensor, src, group, False), True, _received(tensor, src))
