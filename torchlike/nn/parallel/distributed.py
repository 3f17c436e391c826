"""DistributedDataParallel: one replica per process, gradients averaged across ranks during backward.

At construction rank 0's parameters and buffers are broadcast. Parameters are grouped into buckets (in
reverse registration order, as backward usually produces them, ``bucket_cap_mb`` each); a post-accumulate-grad
hook on every parameter marks it ready, and a bucket whose parameters are all ready is flattened and all-reduced
asynchronously (XLA's gloo/NCCL collective runs while the rest of backward computes). When the last bucket is
launched the results are waited for and written back as the averaged ``.grad``.
"""
from __future__ import annotations

import contextlib

from ... import distributed as dist
from ...distributed._grad_bucket import GradBucket
from ...autograd import grad_mode
from ..modules.module import Module
from ...tensor import Tensor
from ..._creation import tensor as _tensor
from ..._dtype import int32
from ...compile import is_compiling
from ...compile._errors import GraphBreak

__all__ = ["DistributedDataParallel"]


class _Future:
    """The result of a comm hook: ``wait()`` returns the tensor; ``then(fn)`` chains."""

    def __init__(self, value=None, work=None):
        self._value, self._work = value, work

    def wait(self):
        if self._work is not None:
            self._work.wait()
            self._work = None
        return self._value

    value = wait

    def then(self, fn):
        return _Future(fn(self))

    def done(self):
        return self._work is None or self._work.is_completed()

    def set_result(self, v):
        self._value = v


class DistributedDataParallel(Module):
    """Data parallelism across processes (see the module docstring). With one process it only wraps.

    >>> import torchlike as torch
    >>> ddp = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 1))
    >>> list(ddp.state_dict())
    ['module.weight', 'module.bias']
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None):
        super().__init__()
        if not any(p.requires_grad for p in module.parameters()):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        self.module = module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        d = self.__dict__
        d["process_group"] = process_group if process_group is not None else (
            dist.group.WORLD if dist.is_initialized() else None)
        d["_world"] = self.process_group.size() if self.process_group is not None else 1
        d["_comm_hook"] = None
        d["_params"] = [p for p in module.parameters() if p.requires_grad]
        cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        buckets, cur, size = [], [], 0
        for p in reversed(self._params):  # backward meets the last layers first
            nbytes = p.numel() * p.element_size()
            if cur and (size + nbytes > cap or p.dtype != cur[0].dtype):
                buckets.append(cur)
                cur, size = [], 0
            cur.append(p)
            size += nbytes
        if cur:
            buckets.append(cur)
        d["_buckets"] = buckets
        d["_bucket_of"] = {id(p): i for i, b in enumerate(buckets) for p in b}
        d["_ready"] = [set() for _ in buckets]
        d["_works"] = {}
        d["_unused"] = set()
        if self._world > 1:
            self._sync_module_states()
            for p in self._params:
                p.register_post_accumulate_grad_hook(self._on_grad)

    # ---- construction-time sync -------------------------------------------------------------------------
    def _sync_module_states(self):
        with grad_mode.no_grad():
            tensors = [p for p in self.module.parameters()] + [b for b in self.module.buffers()]
            _broadcast_coalesced(tensors, self.process_group)

    # ---- forward ------------------------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        if self._world > 1:
            # compiled: the bucket all-reduces become ordered callbacks of the one program (see
            # torchlike.distributed._collectives_traced.in_program). find_unused_parameters reads the used flags on the
            # host: leave before any state changes
            if is_compiling() and self.find_unused_parameters:
                raise GraphBreak("DistributedDataParallel(find_unused_parameters=True) over several processes "
                                 "runs eagerly under torchlike.compile")
        if self._world > 1 and self.broadcast_buffers and self.require_forward_param_sync:
            bufs = list(self.module.buffers())
            if bufs:
                with grad_mode.no_grad():
                    _broadcast_coalesced(bufs, self.process_group)
        out = self.module(*inputs, **kwargs)
        if self._world > 1 and grad_mode.is_grad_enabled() and self.require_backward_grad_sync:
            self._prepare_for_backward(out)
        return out

    def _prepare_for_backward(self, out):
        for r in self._ready:
            r.clear()
        self._works.clear()
        self._unused.clear()
        if self.find_unused_parameters:
            used = _reachable_leaves(out)
            for p in self._params:
                if id(p) not in used:
                    self._unused.add(id(p))
            for p in self._params:
                if id(p) in self._unused:
                    self._mark_ready(p)

    # ---- backward: buckets ----------------------------------------------------------------------------------
    def _on_grad(self, p):
        if not self.require_backward_grad_sync or self._world == 1:
            return
        self._mark_ready(p)

    def _mark_ready(self, p):
        i = self._bucket_of[id(p)]
        self._ready[i].add(id(p))
        if len(self._ready[i]) == len(self._buckets[i]) and i not in self._works:
            self._launch(i)
            if len(self._works) == len(self._buckets):
                self._finalize()

    def _launch(self, i):
        import jax.numpy as jnp

        params = self._buckets[i]
        parts = []
        for p in params:
            g = p.grad
            parts.append(jnp.zeros(p.numel(), p._value.dtype) if g is None or id(p) in self._unused and g is None
                         else g._value.reshape(-1))
        flat = Tensor._wrap_where(jnp.concatenate(parts) if len(parts) > 1 else parts[0])
        bucket = GradBucket(i, flat, params, i == len(self._buckets) - 1)
        if self._comm_hook is not None:
            state, hook = self._comm_hook
            fut = hook(state, bucket)
        else:
            fut = _allreduce_avg(self.process_group, bucket)
        self._works[i] = fut

    def _finalize(self):
        used_any = None
        if self.find_unused_parameters:
            flags = _tensor([0 if id(p) in self._unused else 1 for p in self._params], dtype=int32)
            dist.all_reduce(flags, op=dist.ReduceOp.MAX, group=self.process_group)
            used_any = {id(p): bool(f) for p, f in zip(self._params, flags.tolist())}
        for i, params in enumerate(self._buckets):
            flat = self._works[i].wait()
            v = flat._value
            off = 0
            for p in params:
                n = p.numel()
                piece = v[off:off + n].reshape(tuple(p.shape))
                off += n
                if used_any is not None and not used_any[id(p)]:
                    continue
                if p.grad is None:
                    p.grad = Tensor._wrap(piece, p._dev)
                else:
                    p.grad._set_value(piece.astype(p.grad._value.dtype))
        self._works.clear()

    # ---- torch API --------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def no_sync(self):
        """Accumulate gradients locally (no all-reduce) inside the context."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def join(self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False):
        return contextlib.nullcontext()

    def register_comm_hook(self, state, hook):
        """``hook(state, bucket) -> future`` replaces the default averaging all-reduce of each bucket."""
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        self.__dict__["_comm_hook"] = (state, hook)

    def _set_static_graph(self):
        self.static_graph = True


def _allreduce_avg(group, bucket):
    buf = bucket.buffer()
    n = group.size() if group is not None else 1
    buf._set_value(buf._value / n)
    work = dist.all_reduce(buf, group=group, async_op=True)
    return _Future(buf, work)


def _broadcast_coalesced(tensors, group, src=0):
    """Broadcast ``tensors`` from ``src`` with one collective per dtype."""
    import jax.numpy as jnp

    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(str(t._value.dtype), []).append(t)
    for ts in by_dtype.values():
        flat = Tensor._wrap(jnp.concatenate([t._value.reshape(-1) for t in ts]), ts[0]._dev)
        dist.broadcast(flat, src=group.ranks[0] if group is not None else src, group=group)
        v, off = flat._value, 0
        for t in ts:
            n = t.numel()
            t._set_value(v[off:off + n].reshape(tuple(t.shape)))
            off += n


def _reachable_leaves(out):
    """ids of the leaf tensors the autograd graph of ``out`` reaches."""
    roots = []

    def collect(o):
        if isinstance(o, Tensor):
            roots.append(o)
        elif isinstance(o, (list, tuple)):
            for x in o:
                collect(x)
        elif isinstance(o, dict):
            for x in o.values():
                collect(x)
    collect(out)
    seen, stack, leaves = set(), [t._grad_fn for t in roots if t._grad_fn is not None], set()
    for t in roots:
        if t._grad_fn is None and t._rg:
            leaves.add(id(t))
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for nxt in _next_nodes(node):
            if isinstance(nxt, Tensor):
                leaves.add(id(nxt))
            elif nxt is not None:
                stack.append(nxt)
    return leaves


def _next_nodes(node):
    """The nodes (or leaf tensors) ``node`` sends gradients to."""
    out = []
    for fn, _ in getattr(node, "next_functions", ()) or ():
        if fn is None:
            continue
        var = getattr(fn, "variable", None)
        out.append(var if var is not None else fn)
    return out
