"""The backward engine's ready queue, ordered as torch's (``ReadyQueue`` with ``CompareNodeTaskTime``).

torch pops the ready node with the highest sequence number; nodes with equal numbers (every ``AccumulateGrad``
has UINT64_MAX) leave in whatever order the binary heap gives. Python's ``heapq`` moves entries exactly as
libstdc++'s ``std::priority_queue`` does (same sift-up on push, same bottom-up sift on pop, right child on a
tie), so keying on the sequence number alone, without a tie-breaker, makes the leaves' gradients, and the
hooks that watch them (``register_post_accumulate_grad_hook``, ``Tensor.register_hook``), arrive in torch's
order: after a convolution the weight before the bias, after ``addmm`` the bias first.

>>> from torchlike._tape import AccumulateGrad
>>> AccumulateGrad.seq
18446744073709551615
"""
from __future__ import annotations

import heapq

from .._tape import AccumulateGrad

__all__ = ["ReadyQueue", "Through", "torch_edge_order", "leaf_order"]

# Where torch pushes a node's edges in another order than the recorded inputs' (``_tape._EDGES`` rebuilds
# ``next_functions`` the same way): input positions in torch's order; ``~k`` is input k reached through the
# ``TBackward0`` node torch records for ``weight.t()`` inside linear (sequence number one below the linear's).
_TORCH_ORDER = {"AddmmBackward0:linear": (2, 0, ~1), "MmBackward0:linear": (0, ~1), "RsubBackward0": (1, 0)}


class _Entry:
    __slots__ = ("key", "node")

    def __init__(self, node):
        self.key = -node.seq
        self.node = node

    def __lt__(self, other):  # the sequence number only: equal ones stay where the heap put them
        return self.key < other.key


class Through:
    """Linear's ``TBackward0``: once popped, it hands the gradient on to ``target``. While a dispatch mode
    watches, a node torch runs after ``node`` (``grad``: its ``run()`` makes that node's aten calls and gives
    the gradient for slot ``slot`` of ``target``; its ``depth`` places it among ``node``'s inner nodes)."""
    __slots__ = ("seq", "target", "grad", "slot")

    def __init__(self, node, target, grad=None, slot=0):
        self.seq = node.seq - (0.5 if grad is None else grad.depth)
        self.target = target
        self.grad = grad
        self.slot = slot


def torch_edge_order(node, grads):
    """``(input position, gradient, through TBackward0)`` for the node's differentiable inputs, in torch's
    push order (None: the recorded order, the common case)."""
    order = _TORCH_ORDER.get(node._name)
    if order is None:
        return None
    by_pos = dict(zip(node.diff_in, grads))
    return [(k if k >= 0 else ~k, by_pos[k if k >= 0 else ~k], k < 0) for k in order
            if (k if k >= 0 else ~k) in by_pos]


def leaf_order(roots, ops):
    """The order torch's engine reaches the leaves (``AccumulateGrad`` nodes) of the graph over ``ops`` from
    the ``roots`` nodes: what the fused backward replays when a leaf has a hook watching for its turn."""
    deps = {}
    for n in ops:
        for i in n.diff_in:
            if n.inputs[i] is not None:
                deps[id(n.inputs[i][0])] = deps.get(id(n.inputs[i][0]), 0) + 1
    heap, out, queued = ReadyQueue(), [], set()
    for n in roots:
        if deps.get(id(n), 0) == 0 and id(n) not in queued:
            queued.add(id(n))
            heap.push(n)

    def arrive(m):
        deps[id(m)] -= 1
        if deps[id(m)] == 0 and id(m) not in queued:
            queued.add(id(m))
            heap.push(m)

    while heap:
        n = heap.pop()
        if type(n) is Through:
            arrive(n.target)
        elif isinstance(n, AccumulateGrad):
            out.append(n)
        else:
            order = torch_edge_order(n, [None] * len(n.diff_in))
            for i, _, through in (order or ((i, None, False) for i in n.diff_in)):
                if n.inputs[i] is None:
                    continue
                m = n.inputs[i][0]
                if through:
                    heap.push(Through(n, m))
                else:
                    arrive(m)
    return out


class ReadyQueue:
    """Nodes whose incoming gradients are complete, popped highest sequence number first."""
    __slots__ = ("_heap",)

    def __init__(self):
        self._heap = []

    def push(self, node):
        heapq.heappush(self._heap, _Entry(node))

    def pop(self):
        return heapq.heappop(self._heap).node

    def __bool__(self):
        return bool(self._heap)
