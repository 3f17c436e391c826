"""torch's strides of views: each view op's stride rule (layer 0, shape arithmetic only).

``_views.strides_of`` walks a view chain with :func:`step_strides` and measures a step without a rule on its
index map; ``view()``'s legality is :func:`compute_view_strides` (torch's ``computeStride``).

>>> contiguous_strides((2, 3, 4))
(12, 4, 1)
>>> step_strides((2, 3), (3, 1), 0, ("permute", (1, 0)))
((3, 2), (1, 3), 0)
>>> compute_view_strides((2, 3), (1, 2), (6,)) is None  # a transposed tensor cannot be flattened by view()
True
"""
from __future__ import annotations

import numpy as np

__all__ = ["contiguous_strides", "step_strides", "compute_view_strides"]


def contiguous_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def step_strides(shape, strides, offset, step):
    """(shape, strides, storage offset) after view ``step`` by torch's rules for its view op, or None where the
    step has no rule here (the index map then measures them)."""
    kind = step[0]
    if kind in ("alias", "conj", "neg", "view_dtype"):
        return shape, strides, offset
    if kind == "permute":
        p = step[1]
        if len(p) != len(shape):
            return None
        return tuple(shape[d] for d in p), tuple(strides[d] for d in p), offset
    if kind == "index":
        sh, st, d = [], [], 0
        for e in step[1]:
            if e is None:  # torch's unsqueeze of the partial result before dim d
                sh.append(1)
                st.append(shape[d] * strides[d] if d < len(shape) else 1)
            elif isinstance(e, (int, np.integer)) and not isinstance(e, bool):
                i = int(e) + shape[d] if e < 0 else int(e)
                offset += i * strides[d]
                d += 1
            elif type(e) is tuple and e and e[0] == "s":
                a, b, k = slice(*e[1:]).indices(shape[d])
                n = len(range(a, b, k))
                offset += a * strides[d]
                sh.append(n)
                st.append(strides[d] * k)
                d += 1
            else:
                return None
        return tuple(sh) + tuple(shape[d:]), tuple(st) + tuple(strides[d:]), offset
    if kind == "expand":
        new = tuple(step[1])
        k = len(new) - len(shape)
        return new, (0,) * k + tuple(0 if shape[i] == 1 and new[k + i] != 1 else strides[i]
                                     for i in range(len(shape))), offset
    if kind == "reshape":
        new = tuple(step[1])
        if len(step) > 2 and step[2][0] == "squeeze":  # torch's squeeze drops the dims' strides
            return new, tuple(s for d, s in enumerate(strides) if d not in step[2][1]), offset
        if len(step) > 2 and step[2][0] == "unsqueeze":  # torch's: size * stride of the dim it goes before
            d = step[2][1]
            return new, strides[:d] + ((shape[d] * strides[d]) if d < len(shape) else 1,) + strides[d:], offset
        st = compute_view_strides(shape, strides, new)  # view(): torch's computeStride
        return None if st is None else (new, st, offset)
    if kind == "as_strided":
        return tuple(step[1]), tuple(step[2]), step[3]
    if kind == "diagonal":
        off, d1, d2 = step[1:]
        if off >= 0:
            n = max(min(shape[d1], shape[d2] - off), 0)
            offset += off * strides[d2] if n else 0
        else:
            n = max(min(shape[d1] + off, shape[d2]), 0)
            offset -= off * strides[d1] if n else 0
        keep = [d for d in range(len(shape)) if d not in (d1, d2)]
        return tuple(shape[d] for d in keep) + (n,), tuple(strides[d] for d in keep) + (strides[d1] + strides[d2],), \
            offset
    if kind == "unfold":
        dim, size, k = step[1:]
        if not shape:
            return (size,), (1,), offset
        sh, st = list(shape), list(strides)
        sh[dim] = (shape[dim] - size) // k + 1
        st[dim] = strides[dim] * k
        return tuple(sh) + (size,), tuple(st) + (strides[dim],), offset
    return None


def compute_view_strides(oldshape, oldstride, newshape):
    """torch's computeStride: strides that view ``oldshape``/``oldstride`` as ``newshape``, or None."""
    numel = int(np.prod(oldshape, dtype=np.int64))
    if numel == 0:
        return contiguous_strides(newshape)
    if len(oldshape) == 0:
        return (1,) * len(newshape)
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1 and
                             oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)
