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
from conftest import raises_like_torch, same_as_torch, torch
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


# one wrong argument of a common function (a fuzz of torch.*'s functions): torch's exception type, and its message
# where it has no C++ trace or overload list (``match``: a regex both messages meet; "" for the type only)
_X = lambda m: m.ones(2, 3)  # noqa: E731
ONE_WRONG_ARGUMENT = [
    # a Tensor where torch's parser takes an int list: none, whatever its shape (a one-element integer one is an int)
    (lambda m: m.logsumexp(_X(m), m.ones(0, 3)), None), (lambda m: m.amax(_X(m), m.ones(0, 3)), None),
    (lambda m: m.sum(_X(m), m.ones(0, 3)), r"^sum\(\) received an invalid combination of arguments - got \(Tensor, "),
    (lambda m: m.mean(_X(m), m.ones(0, 3)), r"^mean\(\) received an invalid combination"),
    (lambda m: m.std(_X(m), m.ones(0, 3)), r"^std\(\) received an invalid combination"),
    (lambda m: m.all(_X(m), m.ones(0, 3)), r"^all\(\) received an invalid combination"),
    (lambda m: m.count_nonzero(_X(m), m.ones(0, 3)), ""), (lambda m: m.sum(_X(m), m.tensor([0, 1])), ""),
    (lambda m: m.squeeze(_X(m), m.ones(0)), r"^squeeze\(\) received an invalid combination"),
    (lambda m: m.squeeze(_X(m), m.tensor(1.)), r"^squeeze\(\) received an invalid combination"),
    (lambda m: m.tile(_X(m), m.tensor(2)), None), (lambda m: m.tile(_X(m), m.tensor(1.5)), None),
    (lambda m: m.reshape(_X(m), m.tensor(6)), None), (lambda m: m.reshape(_X(m), m.tensor(6.)), None),
    (lambda m: m.permute(_X(m), m.tensor(1)), None), (lambda m: m.broadcast_to(_X(m), m.ones(0)), None),
    (lambda m: m.constant_pad_nd(_X(m), m.ones(0)), None),
    # a Scalar: a 0-d tensor that needs no grad
    (lambda m: m.full_like(_X(m), _X(m)), None), (lambda m: m.full_like(_X(m), m.tensor([1.])), None),
    (lambda m: m.full_like(_X(m), m.tensor(1., requires_grad=True)), None),
    # a size or a Scalar past int64 (uint64 for a Scalar): torch's parser fails to unpack it
    (lambda m: m.zeros(10**30), r"^zeros\(\): argument 'size' failed to unpack the object at pos 1 with error "
                                r"\"Overflow when unpacking long long"),
    (lambda m: m.ones(2, 10**30), r"^ones\(\): argument 'size' failed to unpack the object at pos 2 with error "
                                  r"\"Overflow when unpacking long long"),
    (lambda m: m.randn(-10**30), r"^randn\(\): argument 'size' failed to unpack the object at pos 1 "),
    (lambda m: _X(m).view(10**30), r"^view\(\): argument 'size' failed to unpack the object at pos 1 "),
    (lambda m: m.reshape(_X(m), (3, 10**30)), r"^reshape\(\): argument 'shape' failed to unpack the object at pos 2 "),
    (lambda m: m.add(_X(m), 10**30), None), (lambda m: m.eq(_X(m), -10**30), None),
    (lambda m: _X(m).masked_fill(_X(m) > 0, 10**30), None), (lambda m: m.isin(_X(m), 10**30), None),
    (lambda m: m.isin(10**30, _X(m)), None), (lambda m: m.full_like(_X(m), 10**30), None),
    (lambda m: m.scalar_tensor(10**30), None),
    # a number or a list where the first argument is a Tensor
    (lambda m: m.round(-7), None), (lambda m: m.round([[1, 2], [3]]), None), (lambda m: m.round(10**30), None),
    (lambda m: m.clone(10**30), None),
    # a ragged list among the tensors of a tensor list
    (lambda m: m.column_stack([[1, 2], [3]]), None), (lambda m: m.broadcast_tensors([[1, 2], [3]]), None),
    (lambda m: m.broadcast_tensors(m.ones(1), [1]), None), (lambda m: m.hstack([m.ones(1), [1]]), None),
    # aten's binary_cross_entropy_with_logits: the loss has target's shape, input broadcast to it in place
    (lambda m: m.binary_cross_entropy_with_logits(_X(m), m.tensor(1.5)), None),
    (lambda m: m.binary_cross_entropy_with_logits(_X(m), m.ones(0, 3)), None),
    (lambda m: m.binary_cross_entropy_with_logits(m.ones(2), m.ones(3, 2), None, m.ones(2), 1), None),
    # take_along_dim checks the index dtype with a dim; without one, gather's check
    (lambda m: m.take_along_dim(_X(m), m.ones(0, 3), 1), None), (lambda m: m.take_along_dim(_X(m), m.ones(3)), None),
    (lambda m: m.randint_like(_X(m), m.tensor([5])), None),
    # torch parses before the op's value checks (an input's rank, an index's dtype, an integer std)
    (lambda m: m.tril(m.tensor(1.5), _X(m)), None), (lambda m: m.triu(m.tensor(1.5), "x"), None),
    (lambda m: m.diag(m.tensor(1.5), _X(m)), None), (lambda m: m.diag_embed(m.tensor(1.5), None), None),
    (lambda m: m.diagonal_copy(m.tensor(1.5), "x"), None), (lambda m: m.take(-7, _X(m)), None),
    (lambda m: m.nanmean(_X(m).long(), _X(m)), None),
    (lambda m: m.std_mean(_X(m).long(), _X(m)), r"^std_mean\(\) received an invalid combination of arguments - got "
                                                r"\(Tensor, Tensor\), but expected one of:\n"),
    # a factory's sizes are all parsed before its negative-size check; randperm's n is a SymInt
    (lambda m: m.zeros(-7, _X(m)), r"^zeros\(\): argument 'size' failed to unpack the object at pos 2 "),
    (lambda m: m.ones(2, -7, "a"), r"^ones\(\): argument 'size' failed to unpack the object at pos 3 "),
    (lambda m: m.zeros(-7), None), (lambda m: m.randperm(m.tensor(1.5)), None), (lambda m: m.randperm(10**30), None),
    (lambda m: m.randperm(m.tensor([3, 4])), None),
    (lambda m: m.binary_cross_entropy_with_logits(_X(m).long(), m.tensor(1.5)), None),
    (lambda m: m.alias_copy(-7), None), (lambda m: m.t_copy(None), None), (lambda m: m.cholesky_inverse(-7), None),
    (lambda m: m.cholesky_inverse([[1, 2], [3]]), None), (lambda m: m.view_copy(-7, (1,)), ""),
    (lambda m: m.arange(10**30), None), (lambda m: m.arange(-10**30, 0), None),
    (lambda m: m.hann_window(-7), None), (lambda m: m.kaiser_window(-7, True, 12.0), None),
    (lambda m: m.bartlett_window(-1), None), (lambda m: m.hamming_window(-3, False), None),
    (lambda m: m.var_mean(_X(m).long(), "x"), r"^var_mean\(\) received an invalid combination of arguments - got "
                                              r"\(Tensor, str\), but expected one of:\n"),
]


@pytest.mark.parametrize("k", range(len(ONE_WRONG_ARGUMENT)))
def test_one_wrong_argument_raises_like_torch(k):
    fn, match = ONE_WRONG_ARGUMENT[k]
    raises_like_torch(fn, match=match, quiet=True)


# ... and the calls of those functions torch takes
ONE_ARGUMENT_TAKEN = [
    lambda m: m.take_along_dim(_X(m), m.ones(0, 3)), lambda m: m.cholesky(m.ones(0, 3)),
    lambda m: m.cholesky(m.ones(2, 0, 3).long()), lambda m: m.cov(m.tensor(1.5)), lambda m: m.corrcoef(m.tensor(2)),
    lambda m: m.cov(m.tensor(1.5), correction=0), lambda m: m.cov(m.tensor(1.5), fweights=m.tensor(2)),
    lambda m: m.binary_cross_entropy_with_logits(m.tensor(1.5), _X(m) / 4),
    lambda m: [m.binary_cross_entropy_with_logits(m.tensor([0.3, -1.2]), m.tensor([[0.25, 1.], [0., 0.5], [1., 1.]]),
                                                  m.tensor([2., 1.]), None, r) for r in (0, 1, 2)],
    lambda m: m.sum(_X(m), m.tensor(1)), lambda m: m.sum(_X(m), m.tensor([1])), lambda m: m.squeeze(m.ones(2, 1), m.tensor(1)),
    lambda m: m.ones(2, 1).squeeze(m.tensor([1])), lambda m: _X(m).reshape(m.tensor(6)), lambda m: _X(m).tile(m.tensor(2)),
    lambda m: m.zeros(m.tensor(2), 3), lambda m: m.full_like(_X(m), m.tensor(2.)), lambda m: m.full_like(_X(m), m.tensor(2)),
    lambda m: m.randint_like(_X(m), m.tensor(5)).shape, lambda m: m.add(_X(m), 2**63 - 1),
    lambda m: m.randperm(m.tensor([3])).shape, lambda m: m.randperm(m.tensor(3)).shape,
]


@pytest.mark.parametrize("k", range(len(ONE_ARGUMENT_TAKEN)))
def test_one_argument_taken_like_torch(k):
    same_as_torch(ONE_ARGUMENT_TAKEN[k], grad=False)
