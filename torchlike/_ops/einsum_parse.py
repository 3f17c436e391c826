"""torch's einsum equation parser on the way in: its checks, in its order and words, before the equation (spaces
removed) goes to ``jnp.einsum``.  torch reads the operands' terms left to right (a label in [a-zA-Z], '...' once
per term, ',' between terms, spaces ignored but counted in the reported index), then the dimensions each term
covers, then the output term, then each operand's repeated labels, then sizes across operands.

    >>> check_equation("ij,jk->il", [(2, 3), (3, 5)])
    Traceback (most recent call last):
    ...
    RuntimeError: einsum(): output subscript l does not appear in the equation for any input operand
"""
from __future__ import annotations

__all__ = ["check_equation"]


def _label(c):
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


def _ellipsis_at(text, i):
    return i + 2 < len(text) and text[i + 1] == "." and text[i + 2] == "."


def _terms(lhs, n_ops):
    """The operands' label lists ('...' as one item), with torch's errors for a malformed left-hand side."""
    terms, curr, i = [[]], 0, 0
    while i < len(lhs):
        c = lhs[i]
        if c == ".":
            if "..." in terms[curr]:
                raise RuntimeError(f"einsum(): found '.' for operand {curr} for which an ellipsis was already found")
            if not _ellipsis_at(lhs, i):
                raise RuntimeError(f"einsum(): found '.' for operand {curr} that is not part of any ellipsis")
            terms[curr].append("...")
            i += 2
        elif c == ",":
            curr += 1
            if curr >= n_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            terms.append([])
        elif c != " ":
            if not _label(c):
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            terms[curr].append(c)
        i += 1
    if curr != n_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return terms


def check_equation(eq, shapes):
    """Raise torch's RuntimeError where einsum's equation ``eq`` (as given, spaces included) does not fit operands
    of ``shapes``; return None otherwise."""
    arrow = eq.find("->")
    lhs = eq if arrow < 0 else eq[:arrow]
    terms = _terms(lhs, len(shapes))
    seen = set()
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        n = len(term) - ("..." in term)
        if ("..." in term and n > len(shape)) or ("..." not in term and n != len(shape)):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) does not match the number "
                               f"of dimensions ({len(shape)}) for operand {k}"
                               + ("" if "..." in term else " and no ellipsis was given"))
        seen.update(term)
    if arrow >= 0:
        rhs, out, i = eq[arrow + 2:], set(), 0
        while i < len(rhs):
            c = rhs[i]
            if c == ".":
                if "..." in out:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
                if not _ellipsis_at(rhs, i):
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
                out.add("...")
                i += 2
            elif c != " ":
                if not _label(c):
                    raise RuntimeError(f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                                       "equation string, subscripts must be in [a-zA-Z]")
                if c in out or c not in seen:
                    raise RuntimeError(f"einsum(): output subscript {c} " + (
                        "appears more than once in the output" if c in out else
                        "does not appear in the equation for any input operand"))
                out.add(c)
            i += 1
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        pre = term.index("...") if "..." in term else len(term)
        dims = list(range(pre)) + list(range(len(shape) - (len(term) - pre - 1), len(shape)))
        first = {}
        for c, d in zip((t for t in term if t != "..."), dims):
            if c in first and shape[first[c]] != shape[d]:
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't match, "
                                   f"{shape[d]} != {shape[first[c]]}")
            first.setdefault(c, d)
