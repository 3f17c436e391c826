"""The orders torch's CPU kernels leave equal keys in: they sort and select with libstdc++'s algorithms
(``std::sort``'s introsort, ``std::nth_element``, ``std::partial_sort``), which are deterministic but not
stable.  Each is replayed here element by element with torch's comparator, so tied values come out at the
indices torch gives: ``sort`` / ``argsort`` with ``stable=False`` (``sort_orders``), ``topk``
(``topk_order``; multinomial without replacement draws through it too), ``mode`` (``mode_index``);
``kthvalue`` selects with TH's quickselect instead (``quick_select_index``).

>>> sort_order([0] * 20)[:4].tolist()
[10, 19, 18, 17]
>>> topk_order([1.0, 3.0, 3.0, 2.0], 3, largest=False)
[0, 3, 2]
"""
from __future__ import annotations

import numpy as np

__all__ = ["sort_order", "topk_order", "sort_orders", "uses_introsort", "mode_index", "quick_select_index",
           "REPLAY_LIMIT", "SORT_REPLAY_LIMIT"]

# The topk / mode / kthvalue replays run element by element in Python (~1 s for 8 rows of 50000 with a few
# ties); sort's partitions large ranges with numpy and short ones element by element (~0.55 us an element
# with ties throughout, ~27 ms for a 50,257-element row; torch: ~4 ms).  Past these many elements in one
# call torchlike keeps the stable order, and equal keys may then come out in another order than torch's (a
# known difference; the values are the same).
REPLAY_LIMIT = 1 << 14
SORT_REPLAY_LIMIT = 1 << 16

_THRESHOLD = 16  # libstdc++'s _S_threshold
_RADIX_MIN = 32768  # at::internal::GRAIN_SIZE: from there a 1-D ascending integer sort is fbgemm's (stable) radix


def _lg(n):  # std::__lg
    return n.bit_length() - 1


class _Stl:
    """libstdc++'s algorithms over the list ``a`` of (key, index) pairs with the strict order ``comp``."""

    def __init__(self, a, comp):
        self.a, self.comp = a, comp

    def adjust_heap(self, first, hole, length, value):
        a, comp = self.a, self.comp
        top = hole
        second = hole
        while second < (length - 1) // 2:
            second = 2 * (second + 1)
            if comp(a[first + second], a[first + second - 1]):
                second -= 1
            a[first + hole] = a[first + second]
            hole = second
        if (length & 1) == 0 and second == (length - 2) // 2:
            second = 2 * (second + 1)
            a[first + hole] = a[first + second - 1]
            hole = second - 1
        parent = (hole - 1) // 2
        while hole > top and comp(a[first + parent], value):
            a[first + hole] = a[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        a[first + hole] = value

    def make_heap(self, first, last):
        length = last - first
        if length < 2:
            return
        parent = (length - 2) // 2
        while True:
            self.adjust_heap(first, parent, length, self.a[first + parent])
            if parent == 0:
                return
            parent -= 1

    def pop_heap(self, first, last, result):
        a = self.a
        value = a[result]
        a[result] = a[first]
        self.adjust_heap(first, 0, last - first, value)

    def heap_select(self, first, middle, last):
        self.make_heap(first, middle)
        for i in range(middle, last):
            if self.comp(self.a[i], self.a[first]):
                self.pop_heap(first, middle, i)

    def sort_heap(self, first, last):
        while last - first > 1:
            last -= 1
            self.pop_heap(first, last, last)

    def partial_sort(self, first, middle, last):
        self.heap_select(first, middle, last)
        self.sort_heap(first, middle)

    def move_median_to_first(self, result, x, y, z):
        a, comp = self.a, self.comp
        if comp(a[x], a[y]):
            m = y if comp(a[y], a[z]) else z if comp(a[x], a[z]) else x
        elif comp(a[x], a[z]):
            m = x
        elif comp(a[y], a[z]):
            m = z
        else:
            m = y
        a[result], a[m] = a[m], a[result]

    def unguarded_partition(self, first, last, pivot):
        a, comp = self.a, self.comp
        while True:
            while comp(a[first], a[pivot]):
                first += 1
            last -= 1
            while comp(a[pivot], a[last]):
                last -= 1
            if not first < last:
                return first
            a[first], a[last] = a[last], a[first]
            first += 1

    def partition_pivot(self, first, last):
        self.move_median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
        return self.unguarded_partition(first + 1, last, first)

    def unguarded_linear_insert(self, last):
        a, comp = self.a, self.comp
        val = a[last]
        nxt = last - 1
        while comp(val, a[nxt]):
            a[last] = a[nxt]
            last = nxt
            nxt -= 1
        a[last] = val

    def insertion_sort(self, first, last):
        a = self.a
        if first == last:
            return
        for i in range(first + 1, last):
            if self.comp(a[i], a[first]):
                val = a[i]
                a[first + 1:i + 1] = a[first:i]
                a[first] = val
            else:
                self.unguarded_linear_insert(i)

    def introsort_loop(self, first, last, depth):
        while last - first > _THRESHOLD:
            if depth == 0:
                self.partial_sort(first, last, last)
                return
            depth -= 1
            cut = self.partition_pivot(first, last)
            self.introsort_loop(cut, last, depth)
            last = cut

    def sort(self, first, last):
        if first == last:
            return
        self.introsort_loop(first, last, _lg(last - first) * 2)
        if last - first > _THRESHOLD:
            self.insertion_sort(first, first + _THRESHOLD)
            for i in range(first + _THRESHOLD, last):
                self.unguarded_linear_insert(i)
        else:
            self.insertion_sort(first, last)

    def nth_element(self, first, nth, last):
        if first == last or nth == last:
            return
        depth = _lg(last - first) * 2
        while last - first > 3:
            if depth == 0:
                self.heap_select(first, nth + 1, last)
                self.a[first], self.a[nth] = self.a[nth], self.a[first]
                return
            depth -= 1
            cut = self.partition_pivot(first, last)
            if cut <= nth:
                first = cut
            else:
                last = cut
        self.insertion_sort(first, last)


def _greater_nan_first(x, y):
    xv, yv = x[0], y[0]
    return (xv != xv and yv == yv) or xv > yv


def _less_nan_last(x, y):
    xv, yv = x[0], y[0]
    return (xv == xv and yv != yv) or xv < yv


def topk_order(values, k, largest=True, sorted=True):
    """Indices torch's CPU ``topk`` returns for ``values`` (a list of floats): libstdc++'s partial_sort when
    ``k * 64 <= n``, else nth_element then (``sorted``) a sort of the first k - 1, with torch's comparator
    (NaN first when ``largest``, last otherwise)."""
    n = len(values)
    a = [(v, i) for i, v in enumerate(values)]
    s = _Stl(a, _greater_nan_first if largest else _less_nan_last)
    if k == 0:
        return []
    if k * 64 <= n:
        s.partial_sort(0, k, n)
    else:
        s.nth_element(0, k - 1, n)
        if sorted:
            s.sort(0, k - 1)
    return [i for _, i in a[:k]]


def _less_key(x, y):
    return x[0] < y[0]


# Ranges longer than this are partitioned with numpy (one pass of vector operations per partition); shorter
# ones are replayed element by element on Python lists, where numpy's per-call cost would dominate.
_VECTOR_MIN = 256


def _median_of_three(k, first, last):
    """The position ``std::__move_median_to_first`` moves to ``first`` (the pivot): the median of the keys
    at ``first + 1``, the middle and ``last - 1``."""
    x, y, z = first + 1, first + (last - first) // 2, last - 1
    kx, ky, kz = k[x], k[y], k[z]
    if kx < ky:
        return y if ky < kz else z if kx < kz else x
    if kx < kz:
        return x
    return z if ky < kz else y


def _replay_range(keys, idx, first, last, depth):
    """``std::__introsort_loop`` over ``keys[first:last]`` (and ``idx`` along), element by element on Python
    lists with the comparisons inlined (the generic ``_Stl`` calls a comparator per comparison)."""
    k, ix = keys[first:last].tolist(), idx[first:last].tolist()
    stack = [(0, len(k), depth)]
    while stack:
        f, la, d = stack.pop()
        while la - f > _THRESHOLD:
            if d == 0:
                a = list(zip(k[f:la], ix[f:la]))
                _Stl(a, _less_key).partial_sort(0, len(a), len(a))
                k[f:la], ix[f:la] = [v for v, _ in a], [i for _, i in a]
                break
            d -= 1
            m = _median_of_three(k, f, la)
            k[f], k[m] = k[m], k[f]
            ix[f], ix[m] = ix[m], ix[f]
            p, i, j = k[f], f + 1, la
            while True:
                while k[i] < p:
                    i += 1
                j -= 1
                while p < k[j]:
                    j -= 1
                if not i < j:
                    break
                k[i], k[j] = k[j], k[i]
                ix[i], ix[j] = ix[j], ix[i]
                i += 1
            stack.append((i, la, d))  # std::__introsort_loop recurses on the right part, then loops on the left
            la = i
    keys[first:last] = k
    idx[first:last] = ix


def _partition_pivot(keys, idx, first, last):
    """``std::__unguarded_partition_pivot`` on numpy arrays: the median of three moved to ``first``, then
    Hoare's partition of ``[first + 1, last)`` in one vectorised pass.  Its scans stop at the positions ``L``
    (ascending) of keys not less than the pivot and ``R`` (descending, the pivot's own slot included) of keys
    not greater; the k-th stop of each scan is swapped while ``L[k] < R[k]``, and the cut is ``min(L[m],
    R[m - 1])`` at the first crossing ``m`` (the swapped slots hold keys that stop the scans there)."""
    m = _median_of_three(keys, first, last)
    keys[[first, m]] = keys[[m, first]]
    idx[[first, m]] = idx[[m, first]]
    p = keys[first]
    lo = first + 1
    left = lo + np.flatnonzero(keys[lo:last] >= p)
    right = first + np.flatnonzero(keys[first:last] <= p)[::-1]
    n = min(left.size, right.size)
    crossed = left[:n] >= right[:n]
    m = int(crossed.argmax()) if crossed.any() else n
    cut = int(left[m]) if m < left.size else last
    if m:
        cut = min(cut, int(right[m - 1]))
        ls, rs = left[:m], right[:m]
        keys[ls], keys[rs] = keys[rs], keys[ls].copy()
        idx[ls], idx[rs] = idx[rs], idx[ls].copy()
    return cut


def _introsort(keys, idx, first, last, depth):
    while last - first > _THRESHOLD:
        if depth == 0 or last - first <= _VECTOR_MIN:
            # Without equal keys inside the range, the order it leaves is irrelevant: the final stable sort
            # puts its keys in order, and a key it shares with another range keeps the ranges' order.
            srt = np.sort(keys[first:last])
            if (srt[1:] == srt[:-1]).any():
                _replay_range(keys, idx, first, last, depth)
            return
        depth -= 1
        cut = _partition_pivot(keys, idx, first, last)
        _introsort(keys, idx, cut, last, depth)
        last = cut


def sort_order(ranks):
    """The permutation ``std::sort`` makes of ``range(len(ranks))`` sorting (rank, index) pairs by rank, as a
    numpy int64 array.  Its final insertion sort is stable, so it is one stable argsort of the arrangement
    the introsort loop leaves."""
    keys = np.array(ranks, np.int64).reshape(-1)
    idx = np.arange(keys.size, dtype=np.int64)
    if keys.size > 1:
        _introsort(keys, idx, 0, keys.size, _lg(keys.size) * 2)
        idx = idx[np.argsort(keys, kind="stable")]
    return idx


def uses_introsort(shape, dim, descending, np_dtype):
    """Whether torch's CPU sort along ``dim`` can order equal keys differently from a stable sort: more than
    16 elements (insertion sort alone is stable), and not fbgemm's radix sort (1-D ascending integers, at
    least 32768 of them)."""
    if shape[dim] <= _THRESHOLD:
        return False
    return not (len(shape) == 1 and not descending and np_dtype.kind in "iu" and shape[0] >= _RADIX_MIN)


def sort_orders(values, descending, replay, ties_only=False):
    """torch's CPU ``sort`` indices along the last axis of numpy ``values``: a stable sort (NaN largest, -0.0
    tying 0.0), and with ``replay`` (``stable=False`` where torch's kernel is an introsort) equal keys of
    the rows that hold any in the order ``std::sort`` leaves them, up to ``SORT_REPLAY_LIMIT`` elements.  Keys
    become integer ranks with torch's order for the replay (NaN ranks last, all NaNs tie).  With
    ``ties_only``, None unless a replay changed the order (any stable sort gives the same order then).

    >>> sort_orders(np.array([[1.0, 0.0, 1.0]]), True, False).tolist()
    [[0, 2, 1]]
    """
    if values.size == 0:
        return np.zeros(values.shape, np.int64)
    flat = values.reshape(-1, values.shape[-1])
    if flat.dtype.kind == "V" or flat.dtype == np.float16:  # (bfloat16 & co compare exactly as float64)
        flat = flat.astype(np.float64)
    if descending:  # stable descending: the reversed stable ascending order of the reversed rows
        order = flat.shape[-1] - 1 - np.argsort(flat[:, ::-1], axis=-1, kind="stable")[:, ::-1]
    else:
        order = np.argsort(flat, axis=-1, kind="stable")
    if not replay or flat.size > SORT_REPLAY_LIMIT or flat.shape[-1] <= _THRESHOLD:
        return None if ties_only else order.reshape(values.shape)
    srt = np.take_along_axis(flat, order, axis=-1)
    same = srt[:, 1:] == srt[:, :-1]
    if flat.dtype.kind == "f":
        same |= np.isnan(srt[:, 1:]) & np.isnan(srt[:, :-1])
    rows = np.flatnonzero(same.any(axis=-1))
    if ties_only and not rows.size:
        return None
    for r in rows:
        ranks = np.unique(flat[r], return_inverse=True)[1].reshape(-1)
        order[r] = sort_order(-ranks if descending else ranks)
    return order.reshape(values.shape)


def mode_index(row):
    """The index torch's CPU ``mode`` returns for the 1-D numpy ``row`` (no NaN): it std::sorts the (value,
    index) pairs and takes the last pair of the first most frequent run."""
    ranks = np.unique(row, return_inverse=True)[1].reshape(-1)
    perm = sort_order(ranks)
    srt = ranks[perm]
    ends = np.flatnonzero(np.append(srt[1:] != srt[:-1], True))
    counts = np.diff(np.concatenate([[-1], ends]))
    return int(perm[ends[int(np.argmax(counts))]])


def _gt_nan_first(x, y):
    return (x != x and y == y) or x > y


def quick_select_index(values, k):
    """The index torch's CPU ``kthvalue`` returns for the ``k``-th smallest (0-based) of the list ``values``:
    ATen's quick_select_template (Sedgewick's median-of-three quickselect from TH, NaN largest)."""
    a = list(values)
    ix = list(range(len(a)))
    gt = _gt_nan_first

    def swap(i, j):
        a[i], a[j] = a[j], a[i]
        ix[i], ix[j] = ix[j], ix[i]
    lo, hi = 0, len(a) - 1
    while hi > lo:
        if hi == lo + 1:
            if gt(a[lo], a[hi]):
                swap(lo, hi)
            break
        swap((lo + hi) >> 1, lo + 1)
        if gt(a[lo + 1], a[hi]):
            swap(lo + 1, hi)
        if gt(a[lo], a[hi]):
            swap(lo, hi)
        if gt(a[lo + 1], a[lo]):
            swap(lo + 1, lo)
        i, j, piv = lo + 1, hi, a[lo]
        while True:
            i += 1
            while gt(piv, a[i]):
                i += 1
            j -= 1
            while gt(a[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return ix[k]
