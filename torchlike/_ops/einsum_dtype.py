"""The result dtype torch's einsum gives integer operands.

torch sums out, per operand, the labels no other operand and not the output has; for integer types that sum
promotes to int64 (``einsum('ij->i', int16)`` is int64).  The operands are then contracted pairwise from
the left: a pair with a contracted label goes through bmm, which refuses mixed dtypes, and a pair without
one through mul, which promotes.  Only equations whose operands are integers below int64 get here."""
from __future__ import annotations

__all__ = ["int_einsum_dtype", "einsum_dtype"]


def _labels(term, ndim=None):
    """A term's labels; '.' for an ellipsis that covers at least one dimension."""
    labels = set(term.replace("...", "."))
    if ndim is not None and "." in labels and ndim <= len(labels) - 1:
        labels.discard(".")
    return labels


def int_einsum_dtype(eq, ndims, dtype, int64, cap):
    """The dtype torch's einsum gives operands of integer ``dtype`` (``int64`` when a per-operand sum
    promotes; ``ndims``: the operands' dims), or a RuntimeError as torch's bmm raises for a mixed pair (``cap``: dtype -> 'Short')."""
    return einsum_dtype(eq, ndims, [dtype] * len(ndims), int64, {dtype}, None, cap)


def einsum_dtype(eq, ndims, dtypes, int64, small, promote, cap):
    """The dtype torch's einsum gives operands of ``dtypes``: a per-operand sum turns a type of ``small`` into
    ``int64``; a pair without a contracted label is multiplied (``promote``: the promoted type of two), a pair with
    one goes through bmm, which raises torch's RuntimeError for two types (``cap``: dtype -> 'Short')."""
    lhs, _, rhs = eq.partition("->")
    terms = [_labels(t, n) for t, n in zip(lhs.split(","), ndims)]
    if "->" in eq:
        out = _labels(rhs)
    else:  # implicit output: labels seen once, and the ellipsis
        seen = lhs.replace("...", "").replace(",", "")
        out = {c for c in seen if seen.count(c) == 1} | ({"."} if any("." in t for t in terms) else set())
    own = []
    for k, t in enumerate(terms):
        others = set().union(*(s for j, s in enumerate(terms) if j != k))
        own.append(t - out - others)
    cur_dt = int64 if own[0] and dtypes[0] in small else dtypes[0]
    cur = terms[0] - own[0]
    for k in range(1, len(terms)):
        dk = int64 if own[k] and dtypes[k] in small else dtypes[k]
        lk = terms[k] - own[k]
        later = set().union(*terms[k + 1:])
        contract = (cur & lk) - out - later
        if dk is not cur_dt:
            if contract:
                raise RuntimeError(f"expected scalar type {cap(cur_dt)} but found {cap(dk)}")
            cur_dt = int64 if promote is None else promote(cur_dt, dk)
        cur = (cur | lk) - contract
    return cur_dt
