"""Views over immutable JAX arrays.

A view is its root tensor plus a chain of view steps, each a hashable tuple ``(kind, *args)``.
Reading a view applies the chain to the root's current array (one cached ``jax.jit`` per chain).
Writing into a view is a functional update of the root: walk the chain forward, then put the new
value back step by step.  Index-like steps put through a scatter at the index map the step induces
on ``arange(root.size)`` (computed once per chain and root shape, with numpy, so it works under a
trace); ``real``/``imag``/``as_real`` put by rebuilding the complex number, ``as_complex`` by splitting it,
``conj``/``neg`` (torch's conjugate and negative bits) by conjugating/negating the value written.  The same index maps give torch's
strides, storage offset and ``is_contiguous`` where a step has no stride rule of its view op
(``_view_strides``, re-exported here).
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import _jit_cache
from ._device import host_to_jax
from ._view_strides import compute_view_strides, contiguous_strides, step_strides

__all__ = ["HOST_CHAIN", "read", "host_values", "apply_chain", "write_back", "strides_of", "contiguous_strides", "compute_view_strides",
           "checked_host_values", "all_in_range", "checked_in_range", "repeats", "index_spec", "index_shape", "split_chain", "apply_skel", "conj_neg_bits", "dynamic_index", "Pending", "read_together", "read_last", "host_read"]

HOST_CHAIN = (("alias",),)  # a host-resident tensor's chain (tensor.py's ``_ALIAS_CHAIN``; known by identity)


def _unfold(x, xp, dim, size, step):
    n = (x.shape[dim] - size) // step + 1
    idx = (np.arange(n)[:, None] * step + np.arange(size)[None, :])  # (n, size)
    y = xp.take(x, idx.reshape(-1), axis=dim)
    y = y.reshape(x.shape[:dim] + (n, size) + x.shape[dim + 1:])
    return xp.moveaxis(y, dim + 1, -1)


def _physical(shape, strides):
    """For each element of a root of ``shape`` laid out with torch's ``strides``, its place in the storage."""
    idx = np.zeros(tuple(shape), dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        shp = [1] * len(shape)
        shp[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shp)
    return idx


@functools.lru_cache(maxsize=64)
def _logical_of(shape, strides):
    """The inverse of ``_physical``: for each storage place, the row-major index of its element."""
    inv = np.empty(int(np.prod(shape, dtype=np.int64)), dtype=np.int64)
    inv[_physical(shape, strides).reshape(-1)] = np.arange(inv.size, dtype=np.int64)
    return inv


def _as_strided(x, xp, size, stride, offset, root_strides=None):
    idx = np.full(tuple(size), offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(size, stride)):
        shp = [1] * len(size)
        shp[d] = n
        idx = idx + (np.arange(n) * s).reshape(shp)
    if idx.size and (idx.max() >= x.size or idx.min() < 0):
        n = x.dtype.itemsize  # torch counts the storage in bytes
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
                           f"and itemsize {n} requiring a storage size of {(int(idx.max()) + 1) * n} are out of "
                           f"bounds for storage of size {x.size * n}")
    if root_strides is not None:  # the root's storage is in torch's order for those strides (_memory_format)
        idx = _logical_of(tuple(x.shape), root_strides)[idx]
    return xp.reshape(x, (-1,))[idx.reshape(-1)].reshape(tuple(size))


def _index(x, xp, idx):
    key = tuple(slice(*e[1:]) if isinstance(e, tuple) else e for e in idx)
    return x[key]


def read(x, step, xp=jnp):
    """Apply one view step to an array (jnp, or np for index maps)."""
    kind = step[0]
    if kind == "reshape":
        return xp.reshape(x, step[1])
    if kind == "permute":
        return xp.transpose(x, step[1])
    if kind == "index":
        return _index(x, xp, step[1])
    if kind == "expand":
        return xp.broadcast_to(x, step[1])
    if kind == "diagonal":
        return xp.diagonal(x, step[1], step[2], step[3])
    if kind == "unfold":
        return _unfold(x, xp, *step[1:])
    if kind == "as_strided":
        return _as_strided(x, xp, *step[1:])
    if kind == "real":
        return xp.real(x) if xp is jnp else x * 2
    if kind == "imag":
        return xp.imag(x) if xp is jnp else x * 2 + 1
    if kind == "as_real":  # (index maps count a complex root in its real parts, as "real" does)
        return xp.stack([xp.real(x), xp.imag(x)], -1) if xp is jnp else np.stack([x * 2, x * 2 + 1], -1)
    if kind == "as_complex":  # (a float16 pair reads as complex64: JAX has no complex32, docs/differences.md)
        if xp is not jnp:
            return x[..., 0] // 2
        parts = x.astype(jnp.float32) if x.dtype == jnp.float16 else x
        return lax.complex(parts[..., 0], parts[..., 1])
    if kind == "alias":
        # ``detach()``/``.data``: outside autograd's graph, so a JAX gradient of a traced program (the
        # compiled call's backward) stops there too; identity on the values
        return lax.stop_gradient(x) if xp is jnp and step[1:] in (("detach",), ("data",)) else x
    if kind == "conj":  # torch's conjugate bit: a view reading the conjugate (writes conjugate back)
        return jnp.conj(x) if xp is jnp else x
    if kind == "neg":  # torch's negative bit (``x.conj().imag``, ``_neg_view``)
        return -x if xp is jnp else x
    if kind == "view_dtype":
        return bitcast(x, step[1]) if xp is jnp else x
    raise AssertionError(kind)


def conj_neg_bits(t):
    """torch's (conjugate bit, negative bit) of tensor ``t``, read from its view chain (a root has neither):
    ``x.conj()`` and its views are conjugated, ``x.conj().conj()`` is not, ``x.conj().imag`` is a negated view
    of ``x.imag``."""
    conj = neg = False
    if t._vbase is None:
        return conj, neg
    for step in t._chain:
        kind = step[0]
        if kind == "conj":
            conj = not conj
        elif kind == "neg":
            neg = not neg
        elif kind == "imag":
            conj, neg = False, neg != conj
        elif kind == "real":
            conj = False
    return conj, neg


def apply_chain(x, chain):
    for step in chain:
        x = read(x, step)
    return x


_reads = _jit_cache.Cache("view read")
_writes = _jit_cache.Cache("view write")


# ---- index steps with their start positions as a traced argument ----------------------------------
# A basic index (``("index", idx)``, normalised: ints >= 0, slices ``("s", start, stop, step)`` inside
# the dim) is compiled per *structure* (kept dims, slice sizes and steps); the start positions travel as
# an int64 array argument, so ``data[i:i + 8]`` for a new ``i`` reuses the same program.
def index_spec(idx):
    """(spec, starts) for a basic index tuple, or (None, None) if some part is not normalised."""
    spec, starts = [], []
    for e in idx:
        if e is None:
            spec.append("n")
        elif type(e) is int:
            if e < 0:
                return None, None
            spec.append("i")
            starts.append(e)
        else:
            _, a, b, st = e
            if a is None and b is None and st is None:
                spec.append("f")
                continue
            if type(a) is not int or type(b) is not int or type(st) is not int or a < 0 or b < a or st < 1:
                return None, None
            spec.append(((b - a + st - 1) // st, st))
            starts.append(a)
    return tuple(spec), starts


def _span(x, spec, starts, k):
    """dynamic_slice arguments for ``spec`` over ``x``: (begin, sizes, strides, kept shape, next k)."""
    begin, sizes, strides, shape = [], [], [], []
    d = 0
    for e in spec:
        if e == "n":
            continue
        n = x.shape[d]
        if e == "f":
            begin.append(0)
            sizes.append(n)
            strides.append(1)
        elif e == "i":
            begin.append(starts[k])
            k += 1
            sizes.append(1)
            strides.append(1)
        else:
            size, st = e
            begin.append(starts[k])
            k += 1
            sizes.append((size - 1) * st + 1 if size else 0)
            strides.append(st)
        shape.append(n if e == "f" else 1 if e == "i" else e[0])
        d += 1
    for n in x.shape[d:]:  # dims the index leaves out are kept whole
        begin.append(0)
        sizes.append(n)
        strides.append(1)
        shape.append(n)
    return begin, sizes, strides, shape, k


def _out_shape(x, spec):
    return index_shape(x.shape, spec)


def index_shape(shape, spec):
    """The shape a basic index ``spec`` (see :func:`index_spec`) gives an array of ``shape``."""
    out, d = [], 0
    for e in spec:
        if e == "n":
            out.append(1)
            continue
        if e == "f":
            out.append(shape[d])
        elif e != "i":
            out.append(e[0])
        d += 1
    return tuple(out) + tuple(shape[d:])


def _dyn_read(x, spec, starts, k=0):
    begin, sizes, strides, _, k = _span(x, spec, starts, k)
    y = lax.dynamic_slice(x, begin, sizes) if x.ndim else x
    if any(st != 1 for st in strides):
        y = lax.slice(y, (0,) * y.ndim, y.shape, strides)
    return y.reshape(_out_shape(x, spec)), k


def _dyn_put(base, spec, starts, k, new):
    begin, sizes, strides, shape, _ = _span(base, spec, starts, k)
    new = new.reshape(shape).astype(base.dtype)
    if not base.ndim:
        return new
    if any(st != 1 for st in strides):
        block = lax.dynamic_slice(base, begin, sizes)
        new = block.at[tuple(slice(None, None, st) for st in strides)].set(new)
    return lax.dynamic_update_slice(base, new, begin)


def dynamic_index(x, starts, spec):
    """``x`` read at the basic index ``spec`` with start positions ``starts`` (see :func:`index_spec`)."""
    return _dyn_read(x, spec, starts)[0]


def split_chain(chain):
    """(skeleton, starts): ``chain`` with normalised index steps' starts moved into one int64 array."""
    skel, starts = [], []
    for step in chain:
        if step[0] == "index":
            spec, st = index_spec(step[1])
            if spec is not None:
                skel.append(("dindex", spec, len(starts)))
                starts.extend(st)
                continue
        skel.append(step)
    return tuple(skel), (np.array(starts, dtype=np.int64) if starts else None)


def _read_skel(x, step, starts):
    return _dyn_read(x, step[1], starts, step[2])[0] if step[0] == "dindex" else read(x, step)


def apply_skel(root, starts=None, *, skel):
    for step in skel:
        root = _read_skel(root, step, starts)
    return root


def _write_skel(root, new, starts=None, *, skel):
    vals = [root]
    for step in skel[:-1]:
        vals.append(_read_skel(vals[-1], step, starts))
    cur = new
    for step, base in zip(reversed(skel), reversed(vals)):
        cur = _dyn_put(base, step[1], starts, step[2], cur) if step[0] == "dindex" else _put(base, step, cur)
    return cur


def chain_fn(chain):
    """A function reading the view ``chain`` from a root array: one jitted program per chain structure
    (index starts are an argument), held in a bounded cache.  A structure whose shapes keep changing
    (``x.expand(n)`` for a new ``n`` at each step) reads a root in host memory with numpy instead, once
    ``_READ_SHAPES`` of its shapes have compiled (:func:`_read_on_host`)."""
    skel, starts = split_chain(chain)
    e = _reads.get(skel)
    if e is None:
        if _churning(skel):
            return functools.partial(_read_on_host, chain)
        e = _reads.add(skel, jax.jit(functools.partial(apply_skel, skel=skel)))
    return e if starts is None else _bind(e, starts)


_READ_SHAPES = 2  # compiled shapes of one chain structure before its new shapes are read on the host
_read_counts: dict = {}  # the chain structure without its shapes -> the shapes compiled for it


def _churning(skel):
    """Count a compiled chain; whether the structure (its ``expand``/``reshape`` shapes left out) has compiled
    ``_READ_SHAPES`` shapes already."""
    try:
        bare = tuple((st[0], len(st[1])) + tuple(st[2:]) if st[0] in ("expand", "reshape") else st for st in skel)
        n = _read_counts.get(bare, 0)
    except TypeError:  # (an unhashable step)
        return False
    if n >= _READ_SHAPES:
        return True
    if len(_read_counts) >= 4096:
        _read_counts.clear()
    _read_counts[bare] = n + 1
    return False


def _read_on_host(chain, src):
    """The view ``chain`` of ``src`` read with numpy (a copy: the values exactly) where ``src`` is a concrete array
    in host memory; else by the compiled chain."""
    if isinstance(src, jax.Array) and not isinstance(src, jax.core.Tracer) and not src.weak_type and \
            _in_host_memory(src):
        h = host_read(src, chain)
        if h is not None:
            return host_to_jax(np.array(h, order="C"), copy=False, cpu=True)  # (ascontiguousarray: 0-d -> 1-d)
    skel, starts = split_chain(chain)
    e = _reads.get(skel)
    if e is None:
        e = _reads.add(skel, jax.jit(functools.partial(apply_skel, skel=skel)))
    return (e if starts is None else _bind(e, starts))(src)


@functools.lru_cache(maxsize=512)
def index_map(chain, root_shape):
    """For each element of the view, its flat index in the root (numpy int64 array)."""
    idx = np.arange(int(np.prod(root_shape, dtype=np.int64)), dtype=np.int64).reshape(root_shape)
    for step in chain:
        idx = read(idx, step, np)
    return np.array(idx, order="C")  # (ascontiguousarray would turn 0-d into 1-d)


def _to_bytes(x):
    """``x``'s bytes along a new last axis (complex: real and imaginary parts; bool: one byte each)."""
    if jnp.iscomplexobj(x):
        x = jnp.stack([jnp.real(x), jnp.imag(x)], -1)
        return lax.bitcast_convert_type(x, jnp.uint8).reshape(x.shape[:-1] + (-1,))
    if x.dtype.itemsize == 1:  # (lax adds no axis between types of one size)
        return lax.bitcast_convert_type(x.astype(jnp.uint8) if x.dtype == jnp.bool_ else x, jnp.uint8)[..., None]
    return lax.bitcast_convert_type(x, jnp.uint8)


def _from_bytes(b, dtype):
    """The inverse of ``_to_bytes``: the last axis (the element's bytes) becomes one element of ``dtype``."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        parts = lax.bitcast_convert_type(b.reshape(b.shape[:-1] + (2, -1)), np.dtype(f"f{dtype.itemsize // 2}"))
        return lax.complex(parts[..., 0], parts[..., 1])
    if dtype == np.bool_:
        return b[..., 0] != 0
    return lax.bitcast_convert_type(b if dtype.itemsize > 1 else b[..., 0], dtype)


def bitcast(x, dtype):
    """``lax.bitcast_convert_type(x, dtype)`` (same bits; a wider target consumes the last axis, a narrower one
    adds one) also where either side is complex or bool, which lax refuses (``x.view(torch.float32)`` of a
    complex64 tensor)."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "cb" and not jnp.iscomplexobj(x) and x.dtype != jnp.bool_:
        return lax.bitcast_convert_type(x, dtype)
    a, b = x.dtype.itemsize, dtype.itemsize
    raw = _to_bytes(x)  # x.shape + (a,)
    if b > a:
        return _from_bytes(raw.reshape(x.shape[:-1] + (b,)), dtype)
    if b < a:
        return _from_bytes(raw.reshape(x.shape + (a // b, b)), dtype)
    return _from_bytes(raw, dtype)


def _put(base, step, new):
    kind = step[0]
    if kind == "real":
        return lax.complex(new.astype(jnp.real(base).dtype), jnp.imag(base))
    if kind == "imag":
        return lax.complex(jnp.real(base), new.astype(jnp.real(base).dtype))
    if kind == "as_real":
        return lax.complex(new[..., 0], new[..., 1]).astype(base.dtype)
    if kind == "as_complex":
        return jnp.stack([jnp.real(new), jnp.imag(new)], -1).astype(base.dtype)
    if kind == "alias":
        return new
    if kind == "conj":
        return jnp.conj(new).astype(base.dtype)
    if kind == "neg":
        return (-new).astype(base.dtype)
    if kind == "view_dtype":
        return bitcast(new, base.dtype)
    if kind == "index":  # a basic index: a (strided) dynamic_update_slice, with no index map of the base's shape
        spec, starts = index_spec(step[1])  # (so a program writing rows reads as row-wise to _row_buckets)
        if spec is not None:
            return _dyn_put(base, spec, starts, 0, new)
    idx = index_map((step,), tuple(base.shape))
    flat = idx.reshape(-1)
    if step[0] in ("expand", "as_strided") and len(np.unique(flat)) < flat.size:
        return _last_change(base, flat, new)
    return base.reshape(-1).at[flat].set(new.reshape(-1).astype(base.dtype)).reshape(base.shape)


def _last_change(base, flat, new):
    """``new`` written through a view step whose elements ``flat`` repeat places of ``base`` (an expanded tensor) as
    torch's kernels write one element after the other: each place keeps the value of the last element (in row-major
    order) that changed it, its old value if none did.  (Through an expanded view to a view of it without repeats,
    ``x.expand(3, 3)[0] = v``, that is the plain write.)"""
    b = base.reshape(-1)
    v = new.reshape(-1).astype(base.dtype)
    order = jnp.where(v != b[flat], jnp.arange(flat.size), -1)
    last = jnp.full(b.shape, -1, order.dtype).at[flat].max(order)
    return jnp.where(last >= 0, v[jnp.maximum(last, 0)], b).reshape(base.shape)


@functools.lru_cache(maxsize=256)
def repeats(chain, root_shape):
    """Whether the view ``chain`` of a root of ``root_shape`` has more than one element at one place of the root
    (an expanded view, an overlapping ``as_strided``): only ops that write such a view one element after the other
    (fill_, masked_fill_, ...) may write it, as ``_last_change`` does; the others raise torch's error."""
    if not any(step[0] == "expand" or step[0] == "as_strided" for step in chain):
        return False
    flat = index_map(chain, root_shape).reshape(-1)
    return len(np.unique(flat)) < flat.size


def write_back(root, new, chain):
    """The root array after writing ``new`` into the view ``chain`` of it (pure; differentiable)."""
    vals = [root]
    for step in chain[:-1]:
        vals.append(read(vals[-1], step))
    cur = new
    for step, base in zip(reversed(chain), reversed(vals)):
        cur = _put(base, step, cur)
    return cur


def write_back_fn(chain):
    """A function ``(root, new) -> root`` writing into the view ``chain`` (one program per structure)."""
    skel, starts = split_chain(chain)
    e = _writes.get(skel)
    if e is None:
        e = _writes.add(skel, jax.jit(functools.partial(_write_skel, skel=skel)))
    return e if starts is None else _bind(e, starts)


def _bind(e, starts):
    return lambda *a: e(*a, starts)


# ---- lazy views: a basic view whose value is read on first use ------------------------------------
class Pending:
    """The ``_x`` of a view not read yet: its shape and dtype, and ``src``, the root's array when the view
    was made (the view's value is its chain applied to ``src`` while the root's version is unchanged)."""

    __slots__ = ("shape", "dtype", "src", "group", "host", "last")

    def __init__(self, shape, dtype, src, host=None, last=None):
        self.shape, self.dtype, self.src = tuple(shape), dtype, src
        self.group = None  # weak references to sibling views read together (the rows of one iteration)
        self.host = host  # the value as a numpy array, once read on the host (scalars)
        self.last = last  # (spec, starts) of the chain's last step, a basic index (see index_spec)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n


_stacks = _jit_cache.Cache("view stack")


def _prefix_then(root, pstarts, starts, *, pskel, spec, each):
    """The shared parent chain ``pskel`` read once, then each view's last step (``spec`` at one row of
    ``starts``): stacked (``each`` = ("stack", axis, merge)) or as a tuple (``each`` = ("rows", n))."""
    x = apply_skel(root, pstarts, skel=pskel)
    if each[0] == "rows":
        return tuple(_dyn_read(x, spec, starts[k])[0] for k in range(each[1]))
    _, axis, merge = each
    y = jax.vmap(lambda st: _dyn_read(x, spec, st)[0])(starts)
    if axis:
        y = jnp.moveaxis(y, 0, axis)
    if merge:  # cat: fold the new axis into the next one
        y = y.reshape(y.shape[:axis] + (y.shape[axis] * y.shape[axis + 1],) + y.shape[axis + 2:])
    return y


def read_together(views, each):
    """``fn()`` reading the lazy ``views`` (one root, see :class:`Pending`) in one program, or None when they
    differ in their parent chain or last step's structure.  ``each``: ("stack", axis, merge) or ("rows", n)."""
    v0 = views[0]
    chain0, last0 = v0._chain, v0._x.last
    if last0 is None:
        return None
    parent, spec = chain0[:-1], last0[0]
    starts = []
    for v in views:
        last, c = v._x.last, v._chain
        if last is None or last[0] != spec or (len(c) > 1 and c[:-1] != parent) or len(c) != len(chain0):
            return None
        starts.append(last[1])
    pskel, pstarts = split_chain(parent)
    key = (pskel, spec, each)
    e = _stacks.get(key)
    if e is None:
        e = _stacks.add(key, jax.jit(functools.partial(_prefix_then, pskel=pskel, spec=spec, each=each)))
    pst = np.zeros((0,), np.int64) if pstarts is None else pstarts
    src = v0._x.src
    st = np.array(starts, np.int64)
    return lambda: e(src, pst, st)


_singles = _jit_cache.Cache("view read one step")


def _read_one(root, starts, *, spec):
    return _dyn_read(root, spec, starts)[0]


def read_last(src, last):
    """A one-step lazy view's value: ``last`` = (spec, starts) read from the root array ``src``."""
    spec, starts = last
    e = _singles.get(spec)
    if e is None:
        e = _singles.add(spec, jax.jit(functools.partial(_read_one, spec=spec)))
    return e(src, np.array(starts, np.int64))


_HOST_STEPS = frozenset(("index", "reshape", "permute", "expand", "alias"))
_host_src = [(None, None)]  # (root array, its numpy copy): one entry (one tuple: safe across threads)


def _host_copy(src):
    c = _host_src[0]
    if c[0] is not src:
        c = _host_src[0] = (src, np.asarray(src))
    return c[1]


# id(device array) -> (that array, its numpy copy) for the last _RECENT host tensors moved to the device (oldest
# first; the entry holds the array, so its id stays its own): their ``tolist()``/``numpy()`` read the copy
_recent_host: dict = {}
_RECENT = 16


def remember_host(src, arr):
    """Note that device array ``src`` holds numpy ``arr``'s values (a host tensor just moved to the device):
    host reads of its views then read ``arr``, with no transfer back; so do reads of the tensor itself
    (``host_copy``) while it is one of the last ``_RECENT`` moved."""
    _host_src[0] = (src, arr)
    r = _recent_host
    try:
        while len(r) >= _RECENT:
            del r[next(iter(r))]
    except (KeyError, RuntimeError, StopIteration):  # (another thread trimmed it meanwhile)
        pass
    r[id(src)] = (src, arr)


def forget_host(src):
    """Drop the numpy copy noted for device array ``src``: its buffer was exported (``__dlpack__``), so a
    consumer may write it in place and the copy would go stale."""
    _recent_host.pop(id(src), None)
    if _host_src[0][0] is src:
        _host_src[0] = (None, None)


def host_copy(src):
    """The numpy array device array ``src`` was moved from (``remember_host``), or None."""
    e = _recent_host.get(id(src))
    return e[1] if e is not None and e[0] is src else None


def _in_host_memory(src):
    """Whether device array ``src`` lives on JAX's CPU device, where ``np.asarray`` aliases its buffer (no copy:
    a few us at any size), so a root of any size is cheap to read on the host.  Asked once per root: the
    answer is followed by ``_host_copy``, which caches the root's host array."""
    try:
        return all(d.platform == "cpu" for d in src.devices())
    except Exception:  # (not a concrete jax array)
        return False


def host_read(src, chain):
    """The view ``chain`` of the root array ``src`` read on the host from one cached copy of a small root or one in
    host memory (``int(i)`` for each ``i`` of a tensor costs one transfer, not one per element); None if not cheap."""
    c = _host_src[0]
    if c[0] is src:  # (the cached copy first: jax's ``size`` is a Python property)
        x = c[1]
    elif type(src) is np.ndarray:
        x = src
    elif src.size > 65536 and not _in_host_memory(src):
        return None
    else:
        x = None
    if len(chain) == 1 and chain[0][0] == "index":  # the row of an iteration (``for i in ix``)
        idx = chain[0][1]
        if len(idx) == 1 and type(idx[0]) is int:
            if x is None:
                x = _host_copy(src)
            return np.asarray(x[idx[0]])
    if any(step[0] not in _HOST_STEPS for step in chain):
        return None
    if x is None:
        x = _host_copy(src)
    for step in chain:
        x = read(x, step, np)
    return np.asarray(x)


def host_together(views, each):
    """What :func:`read_together` (``each`` = ("stack", axis, merge)) computes, computed with numpy from a small
    root's host copy (one gather, no program): ``torch.stack([data[i:i + 8] for i in ix])`` of a small
    dataset.  None where that is not the simple case: a last step other than an int or a slice of dim 0, a
    parent chain numpy cannot read, a root over 65536 elements on an accelerator (a root in host memory, on
    JAX's CPU device, is read where it is: ``np.asarray`` aliases its buffer, ~5 us at any size)."""
    v0 = views[0]
    src, last0, chain0 = v0._x.src, v0._x.last, v0._chain
    if last0 is None:
        return None
    spec = last0[0]
    e0 = spec[0] if spec else "n"
    if e0 == "n" or e0 == "f" or any(e != "f" for e in spec[1:]):
        return None
    parent = chain0[:-1]
    for step in parent:
        if step[0] not in _HOST_STEPS:
            return None
    c = _host_src[0]
    if c[0] is src:
        x = c[1]
    elif type(src) is np.ndarray:
        x = src
    elif src.size > 65536 and not _in_host_memory(src):
        return None
    else:
        x = None
    starts = []
    n = len(chain0)
    for v in views:
        last, ch = v._x.last, v._chain
        if last is None or last[0] != spec or len(ch) != n or (n > 1 and ch[:-1] != parent):
            return None
        starts.append(last[1][0])
    if x is None:
        x = _host_copy(src)
    for step in parent:
        x = read(x, step, np)
    idx = np.array(starts, np.int64)
    if e0 != "i":
        size, st = e0
        idx = idx[:, None] + np.arange(0, size * st, st, dtype=np.int64)
    y = np.asarray(x).take(idx, axis=0)
    _, axis, merge = each
    if axis:
        y = np.moveaxis(y, 0, axis)
    if merge:  # cat: fold the new axis into the next one
        y = y.reshape(y.shape[:axis] + (y.shape[axis] * y.shape[axis + 1],) + y.shape[axis + 2:])
    return np.ascontiguousarray(y)


@functools.lru_cache(maxsize=512)
def strides_of(chain, root_shape, root_strides=None):
    """(strides, storage_offset) of the view ``chain`` over a root of ``root_shape``: contiguous, or laid out
    with torch's ``root_strides`` (_memory_format).  Each step follows its torch view op's stride rule (so a
    size-1 dim's stride is torch's too); a step without one is measured on the index map."""
    geo = (tuple(root_shape), root_strides or contiguous_strides(root_shape), 0)
    for step in chain:
        geo = step_strides(*geo, step)
        if geo is None:
            break
    else:
        return tuple(geo[1]), geo[2]
    if root_strides is None:
        idx = index_map(chain, root_shape)
    else:
        idx = _physical(root_shape, root_strides)
        for step in chain:
            idx = read(idx, step, np)
        idx = np.array(idx, order="C")
    shape = idx.shape
    if idx.size == 0:
        return contiguous_strides(shape), 0
    offset = int(idx.reshape(-1)[0])
    strides = []
    cs = contiguous_strides(shape)
    for d, n in enumerate(shape):
        if n > 1:
            sl = [0] * len(shape)
            sl[d] = 1
            strides.append(int(idx[tuple(sl)]) - offset)
        else:
            strides.append(cs[d])
    return tuple(strides), offset


_ORDER_ONLY = frozenset(("reshape", "permute", "transpose", "squeeze", "unsqueeze", "flatten"))


def host_values(t):
    """``t``'s values on the host (e.g. for an index range check).  A full-size reshape/permute view of a
    concrete root (``targets.view(-1)`` of a batch) reads the root instead: the same values, and no wait
    for the view's own program queued behind the forward pass (a mid-forward sync that costs it all)."""
    b = t._vbase
    if b is not None and not isinstance(b._x, jax.core.Tracer) and b._x.size == t.numel() and \
            all(step[0] in _ORDER_ONLY for step in t._chain):
        return np.asarray(b._x)
    return np.asarray(t._value)


def all_in_range(a, n):
    """Whether every value of the non-empty integer array ``a`` lies in ``[0, n)``: one unsigned max (a negative
    value reinterpreted as unsigned is at least 2**(bits-1), above any ``n`` the dtype can hold) instead of a
    min, a max and their compares.  An index range check's common case; the caller looks closer when False."""
    u = _UNSIGNED.get(a.dtype)
    if u is not None and n <= u[1]:
        return _max(a.view(u[0]), axis=None) < n
    if a.dtype.kind == "u":
        return int(a.max()) < n
    return bool(a.min() >= 0 and a.max() < n)


_UNSIGNED = {np.dtype(s): (np.dtype(u), np.iinfo(s).max) for s, u in (("int64", "uint64"), ("int32", "uint32"),
                                                                       ("int16", "uint16"), ("int8", "uint8"))}
_max = np.maximum.reduce


_IN_RANGE: dict = {}  # id(array) -> (array, n): small arrays last found to hold only values in [0, n)


def checked_in_range(t, n):
    """Whether every value of the non-empty integer tensor ``t`` lies in ``[0, n)`` (``all_in_range`` of its
    ``checked_host_values``); None while it is traced.  The last few small arrays found in range are remembered:
    a tensor's array is never written (a write makes a new one; a host tensor owns its numpy array), so the
    batch and the targets an embedding and a loss read at every step are checked once."""
    x = t._x
    current = t._vbase is None or t._chain is HOST_CHAIN and t._seen == -2 - t._ver[0]
    if current:
        hit = _IN_RANGE.get(id(x))
        if hit is not None and hit[0] is x and n >= hit[1]:
            return True
    a = checked_host_values(t)
    if a is None:
        return None
    ok = all_in_range(a, n)
    if ok and current and a.size <= 65536 and (type(x) is np.ndarray or not isinstance(x, jax.core.Tracer)):
        if len(_IN_RANGE) >= 8:
            _IN_RANGE.clear()
        _IN_RANGE[id(x)] = (x, n)
    return ok


def checked_host_values(t):
    """``t``'s values on the host for a range check, or None while ``t`` is traced.  A lazy view not read yet
    (see :class:`Pending`) or a host tensor is read on the host as it is: the check runs no program and does
    not materialise the view an op will read from its root anyway."""
    x = t._x
    if t._seen == -2 - t._ver[0]:
        if type(x) is np.ndarray:
            return x
        if type(x) is Pending:
            h = host_read(x.src, t._chain)
            if h is not None:
                return h
    if isinstance(t._value, jax.core.Tracer):
        return None
    return host_values(t)
