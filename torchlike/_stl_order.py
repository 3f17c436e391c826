"""The orders torch's CPU kernels leave equal keys in: they sort and select with libstdc++'s algorithms
(``std::sort``'s introsort, ``std::nth_element``, ``std::partial_sort``), which are deterministic but not
stable.  Each is replayed here element by element with torch's comparator, so tied values come out at the
indices torch gives: ``sort`` / ``argsort`` with ``stable=False`` (``unstable_orders``), ``topk``
(``topk_order``; multinomial without replacement draws through it too), ``mode`` (``mode_index``);
``kthvalue`` selects with TH's quickselect instead (``quick_select_index``).

>>> sort_order([0] * 20)[:4]
[10, 19, 18, 17]
>>> topk_order([1.0, 3.0, 3.0, 2.0], 3, largest=False)
[0, 3, 2]
"""
from __future__ import annotations

import numpy as np

__all__ = ["sort_order", "topk_order", "unstable_orders", "uses_introsort", "mode_index", "quick_select_index",
           "REPLAY_LIMIT"]

# The replays run element by element in Python (~1 s for 8 rows of 50000 with a few ties): past this many
# elements in one call torchlike keeps the stable order, and equal keys may then come out in another order
# than torch's (a known difference; the values are the same).
REPLAY_LIMIT = 1 << 14

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


def sort_order(ranks):
    """The permutation ``std::sort`` makes of ``range(len(ranks))`` sorting (rank, index) pairs by rank."""
    a = [(r, i) for i, r in enumerate(ranks)]
    _Stl(a, _less_key).sort(0, len(a))
    return [i for _, i in a]


def uses_introsort(shape, dim, descending, np_dtype):
    """Whether torch's CPU sort along ``dim`` can order equal keys differently from a stable sort: more than
    16 elements (insertion sort alone is stable), and not fbgemm's radix sort (1-D ascending integers, at
    least 32768 of them)."""
    if shape[dim] <= _THRESHOLD:
        return False
    return not (len(shape) == 1 and not descending and np_dtype.kind in "iu" and shape[0] >= _RADIX_MIN)


def unstable_orders(values, descending):
    """torch's ``sort(stable=False)`` indices along the last axis of numpy ``values``; None when no row holds
    equal keys (a stable sort gives the same order then).  Keys become integer ranks with torch's order:
    NaN ranks last (all NaNs tie), -0.0 ties 0.0."""
    flat = values.reshape(-1, values.shape[-1])
    if flat.dtype.kind in "fV":  # (bfloat16 & co compare exactly as float64)
        flat = flat.astype(np.float64)
    srt = np.sort(flat, axis=-1)
    same = srt[:, 1:] == srt[:, :-1]
    if flat.dtype.kind == "f":
        same |= np.isnan(srt[:, 1:]) & np.isnan(srt[:, :-1])
    if not same.any() or flat.size > REPLAY_LIMIT:
        return None
    out = np.empty(flat.shape, np.int64)
    for r, row in enumerate(flat):
        ranks = np.unique(row, return_inverse=True)[1].reshape(-1)
        out[r] = sort_order((-ranks if descending else ranks).tolist())
    return out.reshape(values.shape)


def mode_index(row):
    """The index torch's CPU ``mode`` returns for the 1-D numpy ``row`` (no NaN): it std::sorts the (value,
    index) pairs and takes the last pair of the first most frequent run."""
    ranks = np.unique(row, return_inverse=True)[1].reshape(-1)
    perm = sort_order(ranks.tolist())
    srt = ranks[perm]
    ends = np.flatnonzero(np.append(srt[1:] != srt[:-1], True))
    counts = np.diff(np.concatenate([[-1], ends]))
    return perm[ends[int(np.argmax(counts))]]


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
