"""Wrong-typed arguments raise what torch raises: a sweep over every public Tensor method and every torch.*
function that torch's C++ argument parser (``torch._C._VariableFunctions``) or ``torch.functional`` defines
and torchlike has, each called with a few wrongly typed argument patterns (a str where a dim/int/Tensor is
expected, a float where an int is, None, a list of floats for a size, ``dim='x'``).

Cases are the calls torch itself rejects (found by running torch when this module is collected).  Each case
requires torchlike's exception type to be torch's; the cases left as they are sit in _argument_types_known.py
with their reason (strict xfails: a fix fails the test until its line goes).  Where torch's parser names the op
(``sum(): argument 'dim' ...``, ``add() received an invalid combination ...``) torchlike's message should name
it too: the count of those that do not may only go down.

``python tests/test_argument_types.py`` prints the counts (``--known``: the mismatches by reason, in
_argument_types_known.py's form; ``--verbose``: the messages that do not name the op).
"""
import collections
import re
import sys
import textwrap
import warnings

import pytest

import torchlike
from conftest import raises_like_torch, torch
from _argument_types_known import KNOWN

# pattern -> (positional args after the tensor, keyword args)
PATTERNS = {
    "str": (("x",), {}),
    "float": ((1.5,), {}),
    "dim_str": ((), {"dim": "x"}),
    "none": ((None,), {}),
    "float_list": (([1.5, 2.5],), {}),
    "int_str": ((0, "x"), {}),
    "str_only": None,  # functions only: torch.f('x')
}
# calls with effects outside the call (files, process state)
SKIP = {"from_file", "register_hook", "register_post_accumulate_grad_hook", "share_memory_"}


def _tensor_methods(mod):
    return sorted(n for n in dir(torch.Tensor) if not n.startswith("_") and n not in SKIP
                  and callable(getattr(torch.Tensor, n)) and callable(getattr(mod.Tensor, n, None)))


def _functions(mod):
    names = {n for n in dir(torch._C._VariableFunctions) if not n.startswith("_")} | set(torch.functional.__all__)
    return sorted(n for n in names - SKIP if callable(getattr(torch, n, None)) and callable(getattr(mod, n, None)))


def call(mod, kind, name, pattern):
    t = mod.ones(2, 3)
    if pattern == "str_only":
        return getattr(mod, name)("x")
    args, kw = PATTERNS[pattern]
    if kind == "method":
        return getattr(t, name)(*args, **kw)
    return getattr(mod, name)(t, *args, **kw)


def _torch_error(kind, name, pattern):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(torch, kind, name, pattern)
    except Exception as e:  # noqa: BLE001 - torch's error is the oracle
        return e
    return None


def _cases():
    out = []
    for kind, names in (("method", _tensor_methods(torchlike)), ("function", _functions(torchlike))):
        for name in names:
            for pattern in PATTERNS:
                if pattern == "str_only" and kind == "method":
                    continue
                err = _torch_error(kind, name, pattern)
                if err is not None:
                    out.append((kind, name, pattern, err))
    return out


def name_pattern(err):
    """A regex a message naming the op as torch's parser does must match; None where torch's does not."""
    m = re.match(r"^(\w+)\((?:\) received an invalid combination|\): argument )", str(err))
    return rf"\b{re.escape(m.group(1))}\(" if isinstance(err, TypeError) and m else None


CASES = _cases()
IDS = {f"{kind}:{name}:{pattern}" for kind, name, pattern, _ in CASES}


def _param(kind, name, pattern, err):
    key = f"{kind}:{name}:{pattern}"
    marks = [pytest.mark.xfail(reason=KNOWN[key], strict=True)] if key in KNOWN else []
    return pytest.param(kind, name, pattern, id=key, marks=marks)


@pytest.mark.parametrize("kind,name,pattern", [_param(*c) for c in CASES])
def test_wrong_argument_type_raises_like_torch(kind, name, pattern):
    """The exception type torch raises (a ``match`` of "" leaves the message to the next test)."""
    raises_like_torch(lambda m: call(m, kind, name, pattern), match="", quiet=True)


def _outcome(kind, name, pattern, err):
    """'ok', 'message' (right type, but the message does not name the op where torch's parser does) or
    'type' (another exception type, or none)."""
    try:
        raises_like_torch(lambda m: call(m, kind, name, pattern), match="", quiet=True)
    except AssertionError:
        return "type"
    pat = name_pattern(err)
    if pat is None:
        return "ok"
    try:
        raises_like_torch(lambda m: call(m, kind, name, pattern), match=pat, quiet=True)
    except AssertionError:
        return "message"
    return "ok"


# cases of the right type whose message does not name the op as torch's does (aliases named by their op,
# Python's own words from an op body no wrapper sees): may only go down
MESSAGE_MISMATCHES_AT_MOST = 40  # (38 measured in one process)


def test_messages_name_the_op():
    bad = [f"{k}:{n}:{p}" for k, n, p, e in CASES if f"{k}:{n}:{p}" not in KNOWN and _outcome(k, n, p, e) == "message"]
    assert len(bad) <= MESSAGE_MISMATCHES_AT_MOST, f"{len(bad)} messages do not name the op: {bad}"


def test_the_sweep_covers_the_surface():
    """The sweep reaches the API (a collection that silently found nothing would pass everything), and every
    known mismatch is a case the sweep makes."""
    assert len(CASES) > 6000, len(CASES)
    assert not set(KNOWN) - IDS, sorted(set(KNOWN) - IDS)


# torch's parser takes exactly True/False for a bool argument and rejects None for a required dim; the message
# gives the position (the method's, or the namespace function's one more) of a positional argument, none for a
# keyword one
EXACT_MESSAGES = [
    lambda m: m.ones(2, 3).sum(0, "x"), lambda m: m.sum(m.ones(2, 3), 0, "x"), lambda m: m.ones(2, 3).sum(0, 1),
    lambda m: m.ones(2, 3).sum(0, keepdim=None), lambda m: m.ones(2, 3).amax(0, keepdim="x"),
    lambda m: m.ones(2, 3).mean(0, 1),
    lambda m: m.ones(2, 3).median(None), lambda m: m.median(m.ones(2, 3), None), lambda m: m.ones(2, 3).argmax(0, 0),
    lambda m: m.ones(2, 3).topk(1, 0, None), lambda m: m.ones(2, 3).kthvalue(1, 0, None),
    lambda m: m.ones(2, 3).logsumexp(None), lambda m: m.ones(2, 3).gather(0, m.zeros(2, 3).long(), sparse_grad="x"),
    lambda m: m.ones(2, 3).qr(None), lambda m: m.qr(m.ones(2, 3), 1.5), lambda m: m.svd(m.ones(2, 3), True, "x"),
    lambda m: m.ones(2, 3).requires_grad_(1), lambda m: m.ones(2, 3).copy_(m.ones(2, 3), 1),
    lambda m: m.ones(3, 3).fill_diagonal_(0, 1), lambda m: m.ones(2, 3).pinverse(None),
    lambda m: m.pinverse(m.ones(2, 3), None), lambda m: m.nn.functional.dropout(m.ones(2, 3), 0.5, "x"),
    lambda m: m.nn.functional.dropout2d(m.ones(1, 2, 3, 3), 0.5, 1), lambda m: m.native_dropout(m.ones(2), 0.5, 1),
    lambda m: m.nn.functional.alpha_dropout(m.ones(2, 3), 0.5, training=None),
    # a value check of the op failed first, where torch's parser rejects another argument's type before
    lambda m: m.ones(2, 3).bmm("x"), lambda m: m.mm(m.ones(2, 3), 1.5), lambda m: m.ones(2, 3).mv(None),
    lambda m: m.ones(2, 3).dot([1.5]), lambda m: m.ones(2, 3).outer("x"), lambda m: m.ones(2, 3).cholesky(None),
    lambda m: m.cholesky_inverse(m.ones(2, 3), "x"), lambda m: m.ones(2, 3).matrix_power(1.5),
    lambda m: m.ones(2, 3).chunk(0, "x"), lambda m: m.nn.functional.conv_transpose2d(m.ones(2, 3), "x"),
    # a method reading a tensor attribute of its non-Tensor argument
    lambda m: m.ones(2, 3).view_as("x"), lambda m: m.ones(2, 3).expand_as(None), lambda m: m.ones(2, 3).type_as(1.5),
    lambda m: m.equal(m.ones(2, 3), None), lambda m: m.ones(2, 3).take("x"), lambda m: m.ones(2, 3).prelu([1.5]),
    # a size made with int() (which takes 1.5 and makes a ValueError of "x")
    lambda m: m.nn.functional.layer_norm(m.ones(2, 3), "x"), lambda m: m.nn.functional.rms_norm(m.ones(2, 3), [1.5]),
]


# torch's parser error where torchlike's op failed on its own first (a value check, an attribute of a non-Tensor, a
# kernel's error): the op table's wrappers consult the op's torch signatures (torchlike/_ops/signatures.py) on the
# failure path, for namespace functions, methods (positions without self), in-place methods and nn.functional
# entries that are torch.X too, and signatures.parses for functions outside the table
EXACT_MESSAGES += [
    lambda m: m.ones(2, 3).masked_select(None), lambda m: m.addmm(m.ones(2, 3), 0, "x"),
    lambda m: m.ones(2, 3).addmm(0, "x"), lambda m: m.ones(2, 3).histc(1, 0, "x"),
    lambda m: m.roll(m.ones(2, 3), [1.5]), lambda m: m.rot90(m.ones(2, 3), 1, 0),
    lambda m: m.cartesian_prod(m.ones(2), "x"), lambda m: m.ones(3).bincount("x"),
    lambda m: m.bincount(m.ones(3), minlength=True), lambda m: m.ones(2, 3).to_mkldnn(1, 2),
    lambda m: m.ones(2, 3).slice_inverse(dim="x"), lambda m: m.conv_tbc(m.ones(2, 3), 0, "x"),
    lambda m: m.ones(2, 3).inner(None), lambda m: m.ones(2, 3).triangular_solve([1.5]),
    lambda m: m.nn.functional.max_pool2d(m.ones(1, 2, 3), "x"), lambda m: m.ones(2, 3).masked_scatter_(0, "x"),
    lambda m: m.vander(m.ones(2, 3), True), lambda m: m.ones(2, 3).to_sparse_bsr(None),
]
# index_put's indices (element errors count the method's arguments without self) and its bool accumulate
EXACT_MESSAGES += [
    lambda m: m.zeros(3, 2).index_put_((None, m.ones(2).bool()), m.tensor(1.)),
    lambda m: m.zeros(3, 2).index_put_("a", m.tensor(1.)),
    lambda m: m.index_put(m.zeros(3), (m.ones(3).bool(),), "v"),
    lambda m: m.zeros(3).index_put((m.ones(3).bool(),), m.tensor(1.), accumulate="x"),
    lambda m: m.zeros(3).index_put_((m.ones(3).bool(),), m.tensor(1.), 1),
    lambda m: m.index_put(m.zeros(3), (m.ones(3).bool(),), m.tensor(1.), "a"),
    lambda m: m.zeros(3).index_put_((m.ones(3).bool(),), m.tensor(1.), accumulate=None),
    lambda m: m.zeros(3).index_put((m.ones(3).bool(),), m.tensor(1.), accumulate=__import__("numpy").bool_(True)),
]


@pytest.mark.parametrize("k", range(len(EXACT_MESSAGES)))
def test_parser_errors_are_torchs(k):
    raises_like_torch(EXACT_MESSAGES[k])


# torch's "received an invalid combination of arguments" errors: the first line (the op, what it got) is torch's
# (torchlike lists the signatures without torch's "didn't match because ..." lines)
INVALID_COMBINATIONS = [
    lambda m: m.masked_fill(m.ones(2, 3), 0, "x"), lambda m: m.ones(2, 3).histogram("x"),
    lambda m: m.repeat_interleave(m.ones(2, 3), dim="x"), lambda m: m.ones(2, 3).repeat_interleave(dim="x"),
    lambda m: m.lstm(m.ones(2, 3), "x"), lambda m: m.ones(2, 3).set_("x"), lambda m: m.arange(m.ones(2, 3), "x"),
    lambda m: m.ones(2, 3).dsplit(None), lambda m: m.where(m.ones(2, 3) > 0, m.ones(2, 3), "x"),
]


@pytest.mark.parametrize("k", range(len(INVALID_COMBINATIONS)))
def test_invalid_combination_first_line_is_torchs(k):
    try:
        INVALID_COMBINATIONS[k](torch)
    except TypeError as e:
        first = str(e).splitlines()[0]
    raises_like_torch(INVALID_COMBINATIONS[k], match="(?m)^" + re.escape(first) + "$")


def _reason(kind, name, pattern):
    """The reason a mismatching case is left: its list in _argument_types_known.py (for ``--known``)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(torchlike, kind, name, pattern)
    except Exception as e:  # noqa: BLE001 - classifying torchlike's error
        text = str(e)
        if isinstance(e, AttributeError):
            return "method_attr" if kind == "method" else "function_attr"
        if isinstance(e, ValueError) and re.match(r"(invalid literal for int|could not convert string)", text):
            return "number"
        if "not implemented in torchlike" in text or "Could not run" in text or "removed" in text:
            return "missing"
        if "not compiled with" in text or "not linked with" in text or "accelerator device" in text:
            return "device"
        return "value"
    return "noraise"


def main(argv):
    counts = collections.Counter()
    known = collections.defaultdict(list)
    for k, n, p, e in CASES:
        outcome = _outcome(k, n, p, e)
        counts[outcome] += 1
        if outcome == "type":
            known[_reason(k, n, p)].append(f"{k}:{n}:{p}")
        elif outcome == "message" and "--verbose" in argv:
            print("message:", f"{k}:{n}:{p}")
    if "--known" in argv:
        for key, ids in known.items():
            print(f"{key}: {len(ids)}")
            print("\n".join(textwrap.wrap(" ".join(ids), 116, initial_indent="    ", subsequent_indent="    ")))
    print(f"{len(CASES)} cases: {counts['ok']} like torch, {counts['type']} of another exception type (or none), "
          f"{counts['message']} of torch's type whose message does not name the op")


if __name__ == "__main__":
    main(sys.argv[1:])
