"""Batched and object point-to-point calls of torch.distributed: ``P2POp``/``batch_isend_irecv`` and
``send_object_list``/``recv_object_list``.

Each send/recv is a two-process XLA program that both ends run. A batch therefore runs its transfers in
one global order, by (source rank, destination rank, position in the batch), which every rank computes the
same way: the globally first pending transfer always has both of its ends ready, so a ring exchange
(everyone sends right and receives from the left) cannot deadlock.

>>> import torchlike.distributed as dist
>>> op = dist.P2POp(dist.isend, __import__("torchlike").zeros(2), 1)
>>> op.op is dist.isend, op.peer
(True, 1)
"""
from __future__ import annotations

import pickle

import numpy as np

from .. import _creation, _dtype
from . import _p2p
from . import _process_group as _pg

__all__ = ["P2POp", "batch_isend_irecv", "send_object_list", "recv_object_list"]


class P2POp:
    """One send or receive of a batch: ``op`` is ``isend``/``irecv`` (or ``send``/``recv``)."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (_p2p.isend, _p2p.irecv, _p2p.send, _p2p.recv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        if peer is None and group_peer is None:
            raise ValueError("Either peer or group_peer must be specified")
        self.op, self.tensor, self.group, self.tag = op, tensor, group, tag
        g = _pg._group(group) if group is not None else None
        self.peer = peer if peer is not None else (g.ranks[group_peer] if g is not None else group_peer)
        self.group_peer = group_peer

    def __repr__(self):
        return f"P2POp(op={self.op.__name__}, tensor={self.tensor}, peer={self.peer})"


def batch_isend_irecv(p2p_op_list):
    """Run the sends and receives of ``p2p_op_list``; returns one completed ``Work`` per op."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    me = _pg.get_rank()
    keyed = []
    for i, p in enumerate(p2p_op_list):
        sending = p.op in (_p2p.isend, _p2p.send)
        keyed.append(((me, p.peer) if sending else (p.peer, me), i, p, sending))
    # the i-th transfer between a (src, dst) pair on one side is the i-th on the other
    count, order = {}, []
    for pair, i, p, sending in keyed:
        n = count.get(pair, 0)
        count[pair] = n + 1
        order.append((pair, n, i, p, sending))
    for _pair, _n, _i, p, sending in sorted(order, key=lambda e: (e[0], e[1])):
        if sending:
            _p2p.send(p.tensor, p.peer, p.group, p.tag)
        else:
            _p2p.recv(p.tensor, p.peer, p.group, p.tag)
    return [_pg.Work(None) for _ in p2p_op_list]


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None, use_batch=False):
    """Send the picklable objects of ``object_list`` to rank ``dst`` (which calls ``recv_object_list``)."""
    g = _pg._group(group)
    if dst is None:
        dst = g.ranks[group_dst] if group_dst is not None else None
    if dst == _pg.get_rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the "
                         "current process.")
    blobs = [np.frombuffer(pickle.dumps(o), np.uint8) for o in object_list]
    sizes = _creation.tensor([len(b) for b in blobs], dtype=_dtype.int64)
    _p2p.send(sizes, dst, group)
    data = np.concatenate(blobs) if blobs else np.zeros(0, np.uint8)
    _p2p.send(_creation.tensor(data), dst, group)


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None, use_batch=False):
    """Fill ``object_list`` with the objects rank ``src`` sent; returns ``src``."""
    g = _pg._group(group)
    if src is None and group_src is None:
        raise ValueError("Must specify global_rank or group_rank")  # torch's: no any-source object receive
    if src is None:
        src = g.ranks[group_src]
    sizes = _creation.zeros(len(object_list), dtype=_dtype.int64)
    src = _p2p.recv(sizes, src, group)
    n = [int(s) for s in sizes.tolist()]
    data = _creation.zeros(sum(n), dtype=_dtype.uint8)
    _p2p.recv(data, src, group)
    raw = data.numpy().tobytes()
    off = 0
    for i, k in enumerate(n):
        object_list[i] = pickle.loads(raw[off:off + k])
        off += k
    return src
