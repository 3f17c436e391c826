"""Bad input gets torch's exception, never JAX's; nothing a user asks for aborts the interpreter.

Every op in the table is fed wrong shapes and dtypes and must not raise a JAX/XLA/numpy exception or
show JAX's text; the common mistakes (broadcasting, matmul, cat, where, masked_fill, in-place ops,
oversized or overflowing sizes, negative dims) are run in torch too and must raise the same exception
type with the same message.
"""
import inspect
import re
import traceback
import warnings

import pytest

import torchlike
from torchlike._errors import memory_limit
from torchlike._ops.registry import BINARY_OPERATORS, TABLE

torch = pytest.importorskip("torch", reason="torch is the oracle for the expected exceptions")
from conftest import not_a_test_bug, raises_like_torch  # noqa: E402

_JAX_TEXT = re.compile(r"\b(jax\w*|jnp|lax|xla|stablehlo|mlir)\b|[\\/]jax(lib)?[\\/]", re.I)
# torch's own message for a bad device string lists its device types, 'xla' among them
_TORCH_DEVICE_LIST = re.compile(r"Expected one of cpu, cuda, [a-z, ]*privateuseone device type at start of device "
                                r"string: ")


def _outcome(lib, code):
    """(exception type name, message) of running ``code`` with ``t`` bound to ``lib``; ("ok", "")."""
    try:
        r = eval(code, {"t": lib})
        if isinstance(r, torchlike.Tensor):
            r.tolist() if r.numel() < 100 else r.sum().item()
    except Exception as e:  # noqa: BLE001 - the exception is what we compare
        return type(not_a_test_bug(e)).__name__, str(e)
    return "ok", ""


def _assert_clean(e):
    """No JAX type, text, note or frame in ``e`` or in any exception printed with it (the source lines of
    torchlike's own frames may name jax: they are torchlike's code, not a JAX error)."""
    seen = traceback.TracebackException.from_exception(e)
    while seen is not None:
        mod = (seen.exc_type.__module__ if seen.exc_type else "").split(".")[0]
        assert mod not in ("jax", "jaxlib", "numpy"), f"{seen.exc_type}: {seen}"
        text = _TORCH_DEVICE_LIST.sub("", "".join(seen.format_exception_only()))
        assert not _JAX_TEXT.search(text), text
        for fr in seen.stack:
            assert not re.search(r"[\\/]jax(lib)?[\\/]", fr.filename), fr.filename
        seen = seen.__cause__ or (None if seen.__suppress_context__ else seen.__context__)


# --- every op in the table ------------------------------------------------------------------------------
def _z(*s, dtype=None):
    return torchlike.zeros(*s, dtype=dtype)


_BAD_ARGS = [
    lambda: (_z(2, 3), _z(4)),
    lambda: (_z(2, 3), _z(4), _z(5)),
    lambda: (_z(2, 3), _z(4), _z(2, 3)),
    lambda: (_z(2, 3) > 0, _z(4), _z(2, 3)),
    lambda: (_z(2, 3), _z(4) > 0, 1.0),
    lambda: (_z(2, 3), _z(4), 1),
    lambda: (_z(2, 3, dtype=torchlike.int64), _z(4, dtype=torchlike.bool)),
    lambda: (_z(2, 3, dtype=torchlike.complex64), _z(3, 5, dtype=torchlike.int32)),
    lambda: (_z(2, 3), _z(4, 5)),
    lambda: (_z(2, 3, 4), _z(5, 6, 7)),
    lambda: ([_z(2, 3), _z(2, 4)],),
    lambda: (_z(2, 3), 0, _z(4, 5, dtype=torchlike.int64)),
    lambda: (_z(2, 3), 0, _z(4, 5, dtype=torchlike.int64), _z(6)),
    lambda: (_z(2, 3), _z(3, 4, dtype=torchlike.int64)),
    lambda: (_z(0),),
    lambda: (_z(2, 3, dtype=torchlike.bool),),
    lambda: (_z(2, 3, dtype=torchlike.int8),),
    lambda: (_z(2, 3, dtype=torchlike.complex64),),
    lambda: (_z(2, 3), "x"),
]


@pytest.mark.parametrize("name", sorted(TABLE))
def test_op_never_raises_jax_errors(name):
    fn = TABLE[name].fn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for make in _BAD_ARGS:
            try:
                fn(*make())
            except Exception as e:  # noqa: BLE001 - any exception is fine if it is torch-like
                _assert_clean(e)


# --- the common mistakes, compared with torch -------------------------------------------------------
SAME_AS_TORCH = [
    "t.zeros(2, 3) + t.zeros(4)",
    "t.zeros(2, 3) * t.zeros(4)",
    "t.zeros(2, 3) - t.zeros(3, 1, 2)",
    "t.zeros(5, 1, 3) / t.zeros(4, 2)",
    "t.add(t.zeros(2, 3), t.zeros(4), alpha=2)",
    "t.maximum(t.zeros(2, 3), t.zeros(2))",
    "t.atan2(t.zeros(2, 3), t.zeros(4))",
    "t.zeros(2, 3) == t.zeros(4)",
    "t.zeros(2, 3, dtype=t.int64) & t.zeros(4, dtype=t.int64)",
    "t.zeros(2, 3).sub_(t.zeros(4))",
    "t.zeros(2, 3).mul_(t.zeros(3, 3))",
    "t.zeros(3).sub_(t.zeros(2, 3))",
    "t.zeros(3).add_(t.zeros(2, 1))",
    "t.zeros(3).copy_(t.zeros(2, 3))",
    "t.zeros(2, 3).copy_(t.zeros(4))",
    "t.where(t.zeros(2, 3) > 0, t.zeros(4), t.zeros(2, 3))",
    "t.where(t.zeros(4) > 0, t.zeros(2, 3), 1.0)",
    "t.zeros(2, 3).masked_fill(t.zeros(4) > 0, 1.0)",
    "t.zeros(2, 3).masked_fill_(t.zeros(4) > 0, 1.0)",
    "t.zeros(2, 3).masked_fill(t.zeros(2, 3), 1.0)",
    "t.zeros(2, 3) @ t.zeros(4, 5)",
    "t.matmul(t.zeros(2, 2, 3), t.zeros(3, 4, 5))",
    "t.matmul(t.zeros(4, 2, 2, 3), t.zeros(3, 3, 5))",
    "t.matmul(t.zeros(2, 2, 3), t.zeros(2, 4, 5))",
    "t.mm(t.zeros(2, 3), t.zeros(4, 5))",
    "t.bmm(t.zeros(2, 2, 3), t.zeros(2, 4, 5))",
    "t.cat([t.zeros(2, 3), t.zeros(2, 4)])",
    "t.stack([t.zeros(2, 3), t.zeros(2, 4)])",
    "t.normal(t.zeros(2, 3), t.ones(4))",
    "t.lerp(t.zeros(2, 3), t.zeros(4), 0.5)",
    "t.addcmul(t.zeros(2, 3), t.zeros(4), t.zeros(2, 3))",
    "t.clamp(t.zeros(2, 3), t.zeros(4))",
    "t.zeros(2, 3, dtype=t.int64).add_(t.zeros(2, 3))",
    "t.zeros(2, 3).bitwise_and(t.zeros(2, 3))",
    # round's kernel: round_vml_cpu, with decimals round_cpu (the Complex Numbers tutorial rounds an FFT)
    "t.ones(2, dtype=t.cfloat).round()", "t.ones(2, dtype=t.cfloat).round(decimals=4)",
    "t.round(t.ones(2, dtype=t.bool), decimals=2)", "t.ones(2, dtype=t.bool).round_(decimals=0)",
    "t.ones(2, dtype=t.cdouble).floor()", "t.ones(2, dtype=t.bool).ceil()",
]


@pytest.mark.parametrize("code", SAME_AS_TORCH)
def test_error_is_torchs(code):
    expected = _outcome(torch, code)
    assert expected[0] != "ok"
    assert _outcome(torchlike, code) == expected


def test_translated_error_has_no_jax_traceback():
    with pytest.raises(RuntimeError) as info:
        torchlike.zeros(2, 3) + torchlike.zeros(4)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    _assert_clean(info.value)


def test_errors_inside_compile_are_torchs():
    def add(a, b):
        return a + b

    def fill(a):
        return a.masked_fill(a[:2] > 0, 1.0)

    for fn, args in ((add, lambda t: (t.zeros(2, 3), t.zeros(4))), (fill, lambda t: (t.zeros(3, 3),))):
        with pytest.raises(RuntimeError) as want:
            fn(*args(torch))
        with pytest.raises(RuntimeError) as got:
            torchlike.compile(fn)(*args(torchlike))
        assert str(got.value) == str(want.value)
        _assert_clean(got.value)


def test_user_error_inside_compile_passes_through():
    class Mine(ValueError):
        pass

    def f(x):
        raise Mine("bad value")

    with pytest.raises(Mine, match="bad value") as info:
        torchlike.compile(f)(torchlike.zeros(2))
    _assert_clean(info.value)


# --- sizes: negative, overflowing, larger than memory -------------------------------------------
NEGATIVE = [
    "t.empty(-1)", "t.zeros(2, -3)", "t.ones((-1, 2))", "t.full((-2,), 1.0)", "t.randn(-1)", "t.rand(3, -1)",
    "t.randint(0, 5, (-1,))", "t.zeros((2, -3))", "t.zeros(3).new_zeros(-1)", "t.zeros(3).new_full((-2,), 1.0)",
    "t.zeros(3).new_empty(4, -4)", "t.randperm(-3)", "t.zeros(3).view(-1, -1)",
]

OVERFLOW = [
    "t.empty(2**62, 2**62)", "t.zeros(2**62, 4)", "t.empty(2**63 - 1)", "t.ones(2**40, 2**40)",
    "t.full((2**40, 2**40), 1.0)", "t.rand(2**40, 2**40)", "t.randn(2**40, 2**40)",
    "t.randint(0, 5, (2**40, 2**40))", "t.zeros(3).new_zeros(2**62, 4)", "t.zeros(3).new_ones(2**40, 2**40)",
    "t.zeros(3).repeat(2**40, 2**40)", "t.zeros(3).expand(2**40, 2**40, 3)",
    "t.zeros(3).expand(2**40, 2**40, 3).contiguous()",
]


@pytest.mark.parametrize("code", NEGATIVE + OVERFLOW)
def test_bad_size_is_torchs(code):
    expected = _outcome(torch, code)
    assert expected[0] == "RuntimeError"
    assert _outcome(torchlike, code) == expected


_ALLOC = re.compile(r"can't allocate memory: you tried to allocate (\d+) bytes")
TOO_BIG = [
    "t.empty(10**12)", "t.zeros(10**12)", "t.ones(10**6, 10**6)", "t.full((10**12,), 2.0)",
    "t.arange(10**13)", "t.linspace(0, 1, 10**12)", "t.eye(10**6)", "t.rand(10**12)", "t.randn(10**12)",
    "t.randint(0, 9, (10**12,))", "t.randperm(10**12)", "t.zeros(3).new_empty(10**12)",
    "t.zeros(3).new_zeros(10**12)", "t.zeros(3).new_full((10**12,), 1.0)",
    "t.zeros(10**5).repeat(10**8)", "t.zeros(3).tile(10**12)", "t.zeros(2).repeat_interleave(10**12)",
    "t.zeros(10**6).expand(10**7, 10**6).contiguous()", "t.zeros(1).expand(10**12).clone()",
    "t.zeros(10**6, 1) + t.zeros(1, 10**6)",
    "t.zeros(10, 10**6)[t.zeros(10**6, dtype=t.long)]",
    "t.zeros(10, 10**6).index_select(0, t.zeros(10**6, dtype=t.long))",
    "t.outer(t.zeros(10**6), t.zeros(10**6))",
]


@pytest.mark.parametrize("code", TOO_BIG)
def test_oversized_request_raises_torchs_error(code):
    """Raises (never aborts) torch's RuntimeError with the same byte count; torchlike may raise it when the
    result is first read, since XLA reports a failed allocation asynchronously."""
    kind, msg = _outcome(torch, code)
    assert kind == "RuntimeError" and _ALLOC.search(msg), msg
    if int(_ALLOC.search(msg).group(1)) <= memory_limit():
        pytest.skip("this machine could hold the request")
    got_kind, got_msg = _outcome(torchlike, code)
    assert got_kind == "RuntimeError", got_msg
    assert _ALLOC.search(got_msg) and _ALLOC.search(got_msg).group(1) == _ALLOC.search(msg).group(1), got_msg


def test_like_factories_check_size():
    big = torchlike.zeros(3)
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        torchlike.zeros(3).new_empty((2**62, 4))
    for f in (torchlike.zeros_like, torchlike.ones_like, torchlike.empty_like, torchlike.rand_like,
              torchlike.randn_like):
        assert f(big).shape == (3,)


GROWING = [
    "t.nn.functional.one_hot(t.zeros(3, dtype=t.long), 2**62)",
    "t.nn.functional.one_hot(t.zeros(10**6, dtype=t.long), 10**7)",
    "t.nn.functional.pad(t.zeros(3), (2**62, 0))", "t.nn.functional.pad(t.zeros(3), (10**12, 0))",
    "t.bincount(t.zeros(3, dtype=t.long), minlength=2**62)", "t.histc(t.zeros(3), bins=2**62)",
    "t.zeros(3).as_strided((2**40, 2**40), (0, 0))", "t.zeros(3).as_strided((10**6, 10**6), (0, 0))",
    "t.tril_indices(10**7, 10**7)", "t.kron(t.zeros(10**6), t.zeros(10**6))",
    "t.cartesian_prod(t.zeros(10**6), t.zeros(10**6))",
    "t.meshgrid(t.zeros(10**6), t.zeros(10**6), indexing='ij')[0]", "t.diag_embed(t.zeros(10**7))",
    "t.diag(t.zeros(10**7))", "t.nn.functional.interpolate(t.zeros(1, 1, 10), scale_factor=10**12)",
    "t.zeros(3).repeat(2**62)", "t.empty_strided((2**62, 4), (4, 1))", "t.zeros(2).resize_(2**62, 4)",
    "t.zeros(10**6, 1).expand(10**6, 10**6)", "t.multinomial(t.ones(3), 2**62, replacement=True)",
]


@pytest.mark.parametrize("code", GROWING)
def test_ops_with_large_results_raise_not_abort(code):
    """Ops whose result can dwarf their inputs: too large a request is a RuntimeError in torch's words
    (an overflowing size would abort the process inside XLA without the check)."""
    kind, msg = _outcome(torchlike, code)
    assert kind == "RuntimeError", msg
    assert _ALLOC.search(msg) or "overflow" in msg, msg


STATEMENTS = [
    "x = t.zeros(2, 3); x[0] = t.zeros(5)",
    "x = t.zeros(2, 3); x[:, 1:] = t.zeros(3, 2)",
    "x = t.zeros(2, 3); x[t.tensor([0, 1])] = t.zeros(4)",
    "x = t.zeros(3, requires_grad=True); (x * 2).backward(t.zeros(5))",
    "x = t.zeros(2, 3); x.index_add_(0, t.tensor([0]), t.zeros(1, 4))",
    "t.einsum('ij,jk->ik', t.zeros(2, 3), t.zeros(4, 5))",
    "t.nn.Linear(3, 4)(t.zeros(2, 5))",
    "t.nn.Conv2d(3, 4, 3)(t.zeros(1, 2, 8, 8))",
]


def _stmt_outcome(lib, code):
    try:
        exec(code, {"t": lib})
    except Exception as e:  # noqa: BLE001 - the exception is what we compare
        return type(e).__name__, str(e)
    return "ok", ""


@pytest.mark.parametrize("code", STATEMENTS)
def test_setitem_backward_and_modules_errors_are_torchs(code):
    expected = _stmt_outcome(torch, code)
    assert expected[0] != "ok"
    assert _stmt_outcome(torchlike, code) == expected


# === bad inputs raise torch's exception type and message (was test_errors_fixes.py) ===========
def _tl_args(x, memo):
    """torchlike twins of torch tensors inside (nested) arguments; one twin per torch tensor."""
    if isinstance(x, torch.Tensor):
        if id(x) not in memo:
            memo[id(x)] = torchlike.tensor(x.numpy(), dtype=getattr(torchlike, str(x.dtype)[6:]))
        return memo[id(x)]
    if isinstance(x, (list, tuple)):
        return type(x)(_tl_args(v, memo) for v in x)
    if isinstance(x, dict):
        return {k: _tl_args(v, memo) for k, v in x.items()}
    return x


def same_error(tfn, lfn, *args, match=None, **kwargs):
    """``raises_like_torch`` for a torch callable and its torchlike twin on the same (torch) arguments."""
    memo = {}
    largs, lkwargs = _tl_args(args, memo), _tl_args(kwargs, memo)
    raises_like_torch(lambda m: tfn(*args, **kwargs) if m is torch else lfn(*largs, **lkwargs), match=match)


def both(name):
    """The callable at dotted ``name`` in torch and in torchlike."""
    def get(mod):
        obj = mod
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj
    return get(torch), get(torchlike)


a5 = torch.rand(5)


@pytest.mark.parametrize("kw", [
    dict(fweights=torch.ones(5, 5, dtype=torch.long)), dict(aweights=torch.rand(5, 5)),
    dict(fweights=torch.rand(5)), dict(aweights=torch.tensor([1, 1])), dict(aweights=torch.ones(5, dtype=torch.long)),
    dict(fweights=torch.tensor([1])), dict(aweights=torch.rand(1)),
    dict(fweights=torch.tensor([-1, -2, -3, -4, -5])), dict(aweights=-torch.rand(5) - 0.1),
])
def test_cov_weights(kw):
    same_error(*both("cov"), a5, **kw)


def test_cov_weights_ok():
    x = torch.rand(3, 4, dtype=torch.float64)
    fw, aw = torch.tensor([1, 2, 0, 3], dtype=torch.int32), torch.rand(4, dtype=torch.float64)
    r = torchlike.cov(torchlike.tensor(x.numpy()), fweights=torchlike.tensor(fw.numpy()),
                      aweights=torchlike.tensor(aw.numpy()))
    torch.testing.assert_close(torch.tensor(r.numpy()), torch.cov(x, fweights=fw, aweights=aw))


@pytest.mark.parametrize("kw", [dict(rtol=-0.4), dict(atol=-0.4), dict(rtol=-1.0, atol=-1.0),
                                dict(rtol=float("nan"))])
def test_isclose_negative_tolerance(kw):
    x = torch.rand(3)
    same_error(*both("isclose"), x, x, **kw)


@pytest.mark.parametrize("name", ["atan2", "logical_and", "logical_or", "logical_xor", "ldexp", "lcm", "gcd",
                                  "nextafter", "isclose", "polar"])
@pytest.mark.parametrize("case", [0, 1, 2])
def test_tensor_only_binary(name, case):
    t = torch.tensor((1, 2, 3))
    args = [(t, 2), (2, t), (2, 3)][case]
    same_error(*both(name), *args)


@pytest.mark.parametrize("name", ["ne", "lt", "le", "eq", "gt", "ge", "rsub"])
def test_scalar_first(name):
    t = torch.tensor((1, 2, 3))
    for args in [(2, t), (2, 3)]:
        same_error(*both(name), *args, match=rf"^{name}\(\) received an invalid combination of arguments - "
                                             rf"got \((int, Tensor|int, int)\), but expected one of")


def test_scalar_first_still_fine_as_tensor_method():
    t = torch.tensor((1, 2, 3))
    lt = torchlike.tensor([1, 2, 3])
    assert (2 < lt).tolist() == (2 < t).tolist()
    assert (2 != lt).tolist() == (2 != t).tolist()
    assert torchlike.pow(2, lt).tolist() == torch.pow(2, t).tolist()
    assert torchlike.rsub(lt, 2).tolist() == torch.rsub(t, 2).tolist()


def test_pow_two_scalars():
    same_error(*both("pow"), 2, 3, match=r"^pow\(\) received an invalid combination of arguments - got \(int, int\)")


def test_radd_descriptor():
    t = torch.tensor((1, 2, 3))
    same_error(torch.Tensor.__radd__, torchlike.Tensor.__radd__, 2, t, match="descriptor '__radd__' for")
    same_error(torch.Tensor.__radd__, torchlike.Tensor.__radd__, 2, 3, match="descriptor '__radd__' for")
    lt = torchlike.tensor([1, 2, 3])
    assert (2 + lt).tolist() == (2 + t).tolist() and (2.5 + lt).tolist() == (2.5 + t).tolist()


_EXTRA_ARG_OPERATORS = sorted(n for n in BINARY_OPERATORS if hasattr(torch.Tensor, n))


@pytest.mark.parametrize("name", _EXTRA_ARG_OPERATORS)
def test_operator_with_an_extra_argument_is_torchs(name):
    """``t.__pow__(2, 5)`` (what ``pow(t, 2, 5)`` calls): torch's parser TypeError becomes NotImplemented, so
    Python raises "unsupported operand type(s) for ** or pow()"; add/sub take it as the legacy alpha."""
    outcomes = []
    for m in (torch, torchlike):
        t = m.tensor(3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = getattr(t, name)(2, 5)
        outcomes.append(r if r is NotImplemented else r.tolist())
    assert outcomes[1] == outcomes[0]


def test_three_argument_pow_is_pythons_type_error():
    for args in ((2, 5), (torch.tensor(2), torch.tensor(5))):
        with pytest.raises(TypeError) as theirs:
            pow(torch.tensor(3), *args)
        largs = tuple(torchlike.tensor(a.item()) if isinstance(a, torch.Tensor) else a for a in args)
        with pytest.raises(TypeError) as ours:
            pow(torchlike.tensor(3), *largs)
        assert str(ours.value) == str(theirs.value)
    assert pow(torchlike.tensor(3), 2, None).tolist() == pow(torch.tensor(3), 2, None).tolist()


@pytest.mark.parametrize("args", [(torch.rand(3).long(), torch.rand(3).long()), (torch.rand(3), torch.rand(3).double()),
                                  (torch.rand(3).long(), torch.rand(3).double())])
def test_polar_dtypes(args):
    same_error(*both("polar"), *args)


# --- out= aliasing (built natively on both sides so views/expands are the same) ------------------------
def _alias_cases(lib):
    S = 5
    src, ind = lib.arange(6.), lib.tensor([2, 1, 0])
    mask = lib.tensor([True, False, True, True, False, False])
    x, y, z = lib.zeros(0), lib.ones(4, 6), lib.zeros(4, 6)
    i2 = ind.clone()
    return [
        lambda: lib.cat([lib.ones(S, S), lib.ones(S, S)], out=lib.ones(1, S).expand(2 * S, S)),
        lambda: lib.cat((x, y), dim=0, out=x),
        lambda: lib.cat((x, y), dim=0, out=y),
        lambda: lib.cat((y, z), out=z[:2, :]),
        lambda: lib.take(src, ind, out=lib.ones(1).expand(3)),
        lambda: lib.take(src, ind, out=src),
        lambda: lib.take(i2.clone(), i2[1:], out=i2[:-1]),
        lambda: lib.masked_select(src, mask, out=lib.ones(1).expand(3)),
        lambda: lib.masked_select(src, mask, out=src),
        lambda: lib.masked_select(mask.clone(), mask, out=mask),
        # kthvalue and index_select: out may not be an input at all
        lambda: lib.kthvalue(src, 2, out=(src, lib.zeros((), dtype=lib.long))),
        lambda: lib.index_select(y, 0, lib.tensor([0, 1]), out=y),
        lambda: lib.index_select(y, 0, lib.tensor([0, 1]), out=lib.zeros(1, 6).expand(2, 6)),
        lambda: lib.gather(src, 0, ind, out=lib.zeros(1).expand(3)),
        # elementwise ops: out may alias an input exactly, not in part; never an expanded out
        lambda: lib.add(z.view(-1)[:5], 1, out=z.view(-1)[1:6]),
        lambda: lib.mul(src[:4], src[1:5], out=src[2:6]),
        lambda: lib.abs(z, out=lib.zeros(1, 6).expand(4, 6)),
        # complex/polar: out must have the result's dtype
        lambda: lib.complex(src, src, out=lib.zeros(6, dtype=lib.complex128)),
        lambda: lib.polar(src, src, out=lib.zeros(6, dtype=lib.float32)),
    ]


def test_out_overlap_that_torch_allows():
    # out is gather's index (torch checks the index for partial overlap only) or an elementwise op's own
    # input (a matmul's or a reduction's aliased out is allowed too, but torch's result is then its kernel's
    # accident: mm(c, eye, out=c) is all zeros)
    got = []
    for lib in (torch, torchlike):
        src, ind = lib.arange(6), lib.tensor([2, 1, 0])
        b = lib.arange(6.)
        lib.gather(src, 0, ind, out=ind)
        lib.add(b, 1, out=b)
        got.append([t.tolist() for t in (ind, b)])
    assert got[0] == got[1]


@pytest.mark.parametrize("i", range(19))
def test_out_overlap(i):
    same_error(_alias_cases(torch)[i], _alias_cases(torchlike)[i])


def test_out_no_overlap_still_works():
    for lib in (torch, torchlike):
        y, z = lib.ones(4, 6), lib.zeros(4, 6)
        o = lib.empty(8, 6)
        assert lib.cat((y, z), out=o) is o and o.sum().item() == 24
        src = lib.arange(6.)
        o = lib.empty(0)
        lib.take(src, lib.tensor([5, 0]), out=o)
        assert o.tolist() == [5.0, 0.0]
        o = lib.empty(0)
        lib.masked_select(src, src > 3, out=o)
        assert o.tolist() == [4.0, 5.0]


@pytest.mark.parametrize("args", [([],), ([torch.rand(5, 1, 1), None],), ([None, torch.rand(2)],),
                                  ([torch.rand(()), torch.rand(())],), ([torch.rand(3), torch.rand(())],)])
def test_cat_errors(args):
    same_error(torch.cat, torchlike.cat, *args)


# --- narrow -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,args", [((), (0, 0, 1)), ((20, 10, 5), (1, 11, 0)), ((20, 10, 5), (1, -11, 0)),
                                        ((10,), (0, 0, -1)), ((20, 10, 5), (1, 5, 6)),
                                        ((20, 10, 5), (1, torch.ones(5, dtype=torch.int32), 2)),
                                        ((20, 10, 5), (-3, torch.tensor(False), 3)),
                                        ((20, 10, 5), (-3, torch.tensor(1.0), 3))])
def test_narrow_errors(shape, args):
    same_error(torch.narrow, torchlike.narrow, torch.rand(shape), *args)


def test_narrow_tensor_start_and_negative_start():
    x = torch.rand(20, 10, 5)
    lx = torchlike.tensor(x.numpy())
    for args in [(-3, torch.tensor(1), 3), (1, -10, 2), (1, 10, 0)]:
        largs = tuple(torchlike.tensor(a.numpy()) if isinstance(a, torch.Tensor) else a for a in args)
        assert torch.equal(torch.tensor(lx.narrow(*largs).numpy()), x.narrow(*args))


# --- arange / logspace --------------------------------------------------------------------------------
INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize("args,kw", [
    ((0, 3, 0), {}), ((0, -3, 2), {}), ((0, 3, -2), {}), ((1549556900, 1549556828, 1989724), {}),
    ((0, INF, 2), {}), ((-INF, 1, 2), {}), ((0, NAN, 2), {}), ((0, -INF, 2), {}), ((0, 5, NAN), {}),
    ((0, 64, 0.5), dict(dtype="int64")), ((0.5, -5, 1), dict(dtype="int64")), ((0, 1e30, 1e-10), {}),
    ((0, 5, 1), dict(dtype="bool")),
])
def test_arange_errors(args, kw):
    same_error(lambda *a: torch.arange(*a, **{k: getattr(torch, v) for k, v in kw.items()}),
               lambda *a: torchlike.arange(*a, **{k: getattr(torchlike, v) for k, v in kw.items()}), *args)


def test_arange_out_int_fractional_step():
    same_error(torch.arange, torchlike.arange, 0, 64, 0.5, out=torch.empty(0, dtype=torch.int64))


@pytest.mark.parametrize("args,kw", [((0.5, 5, 1), dict(dtype="int64")), ((-0.5, 0.7, 1), dict(dtype="int64")),
                                     ((0, 5, 0.3), dict(dtype="int32")), ((0.7, 5, 1.7), dict(dtype="int32")),
                                     ((0, -5, -1.5), dict(dtype="int64")), ((0, -5, -1.5), dict(dtype="int16")),
                                     ((0, 5, INF), {}), ((1, 2.5, 0.5), {}), ((10.0, 0, -3), {}), ((5,), {})])
def test_arange_values(args, kw):
    t = torch.arange(*args, **{k: getattr(torch, v) for k, v in kw.items()})
    r = torchlike.arange(*args, **{k: getattr(torchlike, v) for k, v in kw.items()})
    assert str(r.dtype) == str(t.dtype) and r.tolist() == t.tolist()


def test_arange_out_dtype():
    o = torchlike.empty(0, dtype=torchlike.float64)
    torchlike.arange(0, 5, 1.5, out=o)
    assert o.tolist() == torch.arange(0, 5, 1.5, out=torch.empty(0, dtype=torch.float64)).tolist()


@pytest.mark.parametrize("args", [(0, 3, -1), (torch.tensor([1, 2]), torch.tensor([1, 2]), 1),
                                  (torch.tensor(1), torch.tensor([1, 2]), 1)])
def test_logspace_errors(args):
    same_error(torch.logspace, torchlike.logspace, *args)


@pytest.mark.parametrize("name", ["linspace", "logspace"])
@pytest.mark.parametrize("args", [(0, 1), (torch.tensor(0.), 1), (0, 1, None)])
def test_range_without_steps_is_the_parsers_error(name, args):
    """``torch.linspace(0, 1)``: torch's parser lists the overloads (got (int, int)), not Python's 'missing 1
    required positional argument'."""
    same_error(*both(name), *args)


def test_logspace_float_steps():
    same_error(torch.logspace, torchlike.logspace, 0, 3, 1.0,
               match=r"^logspace\(\) received an invalid combination of arguments - got \(int, int, float\)")


# --- masked_fill value overflow -------------------------------------------------------------------------
@pytest.mark.parametrize("dt,v", [("float32", 1j), ("float64", 1j), ("int64", "t1j"), ("int64", 1e30),
                                  ("int32", 2 ** 40), ("float32", 1e300), ("float16", 1e300),
                                  ("int64", NAN), ("float32", "t1j"), ("int32", "t1099511627776"),
                                  ("uint8", 256), ("int8", -129)])
def test_masked_fill_overflow(dt, v):
    val = torch.tensor(complex(v[1:]) if "j" in v else int(v[1:])) if isinstance(v, str) else v
    same_error(lambda x, m, val: x.masked_fill(m, val), lambda x, m, val: x.masked_fill(m, val),
               torch.ones(2, dtype=getattr(torch, dt)), torch.tensor(True), val)


@pytest.mark.parametrize("dt,v", [("float32", 1 + 0j), ("int64", 1.5), ("bool", 2), ("uint8", -1),
                                  ("float32", INF), ("int8", -128), ("float16", -INF)])
def test_masked_fill_in_range(dt, v):
    t = torch.ones(2, dtype=getattr(torch, dt)).masked_fill(torch.tensor(True), v)
    r = torchlike.ones(2, dtype=getattr(torchlike, dt)).masked_fill(torchlike.tensor(True), v)
    assert r.tolist() == t.tolist()


# --- movedim / roll / vsplit / renorm / multinomial ----------------------------------------------------
@pytest.mark.parametrize("src,dst", [((0, 4, -5), (1, 0, 2)), ((1, 0, 2), (0, 4, -5)), ((1, 0, -4), (0, 4, -5))])
def test_movedim_repeated(src, dst):
    same_error(torch.movedim, torchlike.movedim, torch.rand(2, 3, 4, 5, 6), src, dst)


@pytest.mark.parametrize("shape,args", [((5,), ((),)), ((5,), ((), ())), ((), (0, 0)), ((5, 5), ((2, 1), 0)),
                                        ((5,), (0, 2))])
def test_roll_errors(shape, args):
    same_error(torch.roll, torchlike.roll, torch.rand(shape), *args)


def test_roll_empty_any_dim():
    assert tuple(torchlike.roll(torchlike.zeros(0), 1, 3).shape) == tuple(torch.roll(torch.zeros(0), 1, 3).shape)


@pytest.mark.parametrize("name", ["vsplit", "hsplit", "dsplit"])
@pytest.mark.parametrize("arg", ["abc", 2.0, [1.0]])
def test_dir_split_types(name, arg):
    same_error(*both(name), torch.rand(4, 4, 4), arg, match=rf"^{name}\(\) received an invalid combination")


@pytest.mark.parametrize("shape,args", [((), (0.5, 0, 1.0)), ((3,), (0.5, 0, 1.0)), ((3, 3), (1, 0, -1.0))])
def test_renorm_errors(shape, args):
    same_error(torch.renorm, torchlike.renorm, torch.rand(shape), *args)


@pytest.mark.parametrize("args,kw", [
    ((torch.rand(1, 2, dtype=torch.float64), 2), dict(out=torch.empty(1, 2, dtype=torch.float64))),
    ((torch.rand(1, 2, dtype=torch.float64), 2), dict(out=torch.empty(1, 2, dtype=torch.int32))),
    ((torch.tensor((1., -1., 1.)), 2, True), {}), ((torch.tensor((1., INF, 1.)), 2, True), {}),
    ((torch.tensor((1., -INF, 1.)), 2, True), {}), ((torch.tensor((1., 1., NAN)), 2, True), {}),
    ((torch.tensor([[1., 1.], [INF, -1.]]), 2, True), {}), ((torch.tensor([[0., 0.], [INF, -1.]]), 2, True), {}),
    ((torch.tensor((1., 1., NAN)), 1, True), {}), ((torch.tensor((1., 1., NAN)), 2, False), {}),
])
def test_multinomial_errors(args, kw):
    same_error(torch.multinomial, torchlike.multinomial, *args, **kw)


def test_multinomial_out_long():
    o = torchlike.empty(0, dtype=torchlike.int64)
    r = torchlike.multinomial(torchlike.tensor([0., 1., 0.]), 2, True, out=o)
    assert r is o and o.tolist() == [1, 1]


def test_concrete_value_error_inside_an_op_keeps_its_words():
    # a tensor reaching a traced JAX function where a Python value is needed raises torchlike's own
    # GraphBreak; the op's error translation passes it through whole (it once cut "jax.jit" and
    # "traced" out of the message, leaving "...being (inside torchlike.compile / )")
    from torchlike._dispatch import dispatch
    from torchlike._errors import GraphBreak

    def needs_python_bool(x, *, flag):
        return x * 2 if bool(flag) else x

    with pytest.raises(GraphBreak) as info:
        dispatch(lambda x, y: needs_python_bool(x, flag=torchlike.Tensor._wrap(y)), (torchlike.ones(2),
                                                                                    torchlike.ones(())))
    msg = str(info.value)
    assert "needs a concrete value" in msg and "being traced" in msg and "jax.jit" in msg, msg


def _attribute_error_leaks(pairs, t, lt, torch_may_raise=(AttributeError,)):
    """Call each (name, torch function, torchlike function) of ``pairs`` with a Python number as its first
    argument, alone and before the tensor ``t`` (``lt`` for torchlike): (the calls where torchlike raised
    Python's AttributeError and torch did not raise one of ``torch_may_raise``, the number of calls)."""
    leaks, checked = [], 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, tf, lf in pairs:
            for targs, largs in [((1,), (1,)), ((1, t), (1, lt)), ((1.5, t), (1.5, lt))]:
                errs = []
                for f, a in ((tf, targs), (lf, largs)):
                    try:
                        f(*a)
                        errs.append(None)
                    except Exception as e:  # noqa: BLE001
                        errs.append(e)
                checked += 1
                if isinstance(errs[1], AttributeError) and not isinstance(errs[0], torch_may_raise):
                    leaks.append((name, len(targs), str(errs[1])))
    return leaks, checked


def _with_tensors(m, args, t, lt):
    return [lt if a is t and m is torchlike else a for a in args]


def test_a_number_where_torch_wants_a_tensor_is_never_pythons_attribute_error():
    # every function of the op table in the torch namespace, given a Python number as its first argument:
    # torchlike raised AttributeError ("'int' object has no attribute 'ndim'") from 203 of them; now torch's
    # TypeError ("sum(): argument 'input' (position 1) must be Tensor, not int"), unless torch itself is a
    # Python function that raises AttributeError there (torch.norm, torch.split)
    t, lt = torch.tensor([2.0, 3.0]), torchlike.tensor([2.0, 3.0])
    pairs = [(name, getattr(torch, name), getattr(torchlike, name)) for ns, name in sorted(TABLE)
             if ns == "torch" and not name.startswith("_") and hasattr(torch, name) and hasattr(torchlike, name)]
    leaks, checked = _attribute_error_leaks(pairs, t, lt)
    assert checked > 1000 and not leaks, leaks
    # and the message is torch's
    for name, args in [("sum", (1,)), ("permute", (1, (0,))), ("sort", (1.5,)), ("kron", (1, t)), ("hypot", (1, t)),
                       ("dist", (t, 2)), ("fmod", (1, t)), ("copysign", (2.5, t)), ("logaddexp", (t, 1))]:
        raises_like_torch(lambda m: getattr(m, name)(*_with_tensors(m, args, t, lt)))


def test_a_number_where_nn_functional_wants_a_tensor_is_never_pythons_attribute_error():
    # the same sweep over torch.nn.functional: 18 functions raised AttributeError where torch's parser raises
    # TypeError (F.nll_loss, F.kl_div, F.one_hot, F.cosine_similarity, F.unfold, ...); where torch's Python
    # code first raises ValueError about another argument (fractional_max_pool's output_size), ours may differ
    t, lt = torch.randn(2, 3), torchlike.randn(2, 3)
    pairs = [(name, getattr(torch.nn.functional, name), getattr(torchlike.nn.functional, name))
             for name in sorted(dir(torch.nn.functional)) if not name.startswith("_")
             and hasattr(torchlike.nn.functional, name) and callable(getattr(torch.nn.functional, name))
             and not inspect.isclass(getattr(torch.nn.functional, name))
             and not inspect.ismodule(getattr(torch.nn.functional, name))]
    leaks, checked = _attribute_error_leaks(pairs, t, lt, (AttributeError, ValueError))
    assert checked > 300 and not leaks, leaks
    for name, args in [("nll_loss", (1, t)), ("kl_div", (t, 1)), ("one_hot", (1,)), ("cosine_similarity", (t, 1)),
                       ("unfold", (1, 2)), ("embedding", (1, t)), ("hardtanh", (1,))]:
        raises_like_torch(lambda m: getattr(m.nn.functional, name)(*_with_tensors(m, args, t, lt)))


@pytest.mark.parametrize("method", ["sub", "add_", "div", "pow", "ne", "remainder", "xlogy", "true_divide",
                                    "floor_divide", "mul"])
def test_none_as_an_operand_is_torchs_type_error(method):
    # x.sub(None) raised AttributeError ('NoneType' object has no attribute 'dtype') from inside the kernel;
    # dispatch's failure path now names the argument as torch's parser does (type; torch's text varies by op)
    e = raises_like_torch(lambda m: getattr(m.ones(2), method)(None), match="NoneType")
    assert isinstance(e, TypeError)


_OPERATORS = sorted(n for n in dir(torch.Tensor) if n in BINARY_OPERATORS)


@pytest.mark.parametrize("operand", [None, "a", object()], ids=["None", "str", "object"])
def test_operator_with_an_operand_torch_does_not_take_returns_not_implemented(operand):
    # ``t == None`` raised TypeError (torch: False, Python's fallback after the operator returned NotImplemented)
    compared = 0
    for name in _OPERATORS:
        if not hasattr(torchlike.Tensor, name):  # __div__/__idiv__: Python 2 names
            continue
        ours = getattr(torchlike.ones(2), name)(operand)
        theirs = getattr(torch.ones(2), name)(operand)
        assert theirs is NotImplemented and ours is NotImplemented, name
        compared += 1
    assert compared >= 40


@pytest.mark.parametrize("expr", ["x == None", "x != None", "x == 'a'", "None != x", "x in [None, 1]"])
def test_comparing_a_tensor_with_none_is_pythons_answer(expr):
    assert eval(expr, {"x": torchlike.ones(1)}) == eval(expr, {"x": torch.ones(1)})


@pytest.mark.parametrize("expr", ["x + None", "x < None", "x & 'a'", "x @ None", "None - x", "x ** 'a'", "x // []"])
def test_operator_with_a_bad_operand_raises_pythons_type_error(expr):
    raises_like_torch(lambda m: eval(expr, {"x": m.ones(2)}), match="unsupported|not supported")


def test_operator_error_of_a_valid_operand_is_the_ops_error():
    raises_like_torch(lambda m: m.ones(2) + m.ones(3), match="must match the size")
    raises_like_torch(lambda m: m.ones(2) & m.ones(2), match="bitwise_and")


@pytest.mark.parametrize("expr", ["f'{x:.2f}'", "f'{p:.2f}'", "bool(e)", "f'{s:.3f}'", "f'{x}'", "format(x, '')"])
def test_python_protocols_raise_or_answer_like_torch(expr):
    # a format spec on a 1-d tensor (or a 0-d Parameter) is object.__format__'s TypeError in torch (we formatted
    # the repr); bool() of an empty tensor names "no values"
    def run(m):
        return eval(expr, {"x": m.ones(2), "s": m.tensor(2.5), "e": m.ones(0), "p": m.nn.Parameter(m.tensor(1.0))})
    if expr in ("f'{s:.3f}'", "f'{x}'", "format(x, '')"):
        assert run(torchlike) == run(torch)
    else:
        raises_like_torch(run, match="unsupported format string|no values")


def test_optional_none_operand_is_not_blamed_for_another_error():
    """multi_margin_loss's JAX function takes weight=None: a float target's failure is torch's dtype error, not a
    parser TypeError about the None (the error_inputs conformance column caught it)."""
    raises_like_torch(lambda m: m.nn.functional.multi_margin_loss(m.ones(5, 4), m.ones(5)))


@pytest.mark.parametrize("call", [
    lambda L: L.func.grad(lambda t: L.zeros(int(t.sum())).sum())(L.ones(2)),
    lambda L: L.func.vmap(lambda t: L.zeros(int(t.sum())))(L.ones(2, 2)),
    lambda L: L.func.jacrev(lambda t: t.sum().item() * t)(L.ones(2)),
    lambda L: L.func.vjp(lambda t: t.foo(), L.ones(2)),
    lambda L: L.func.vmap(lambda t: 1 / 0)(L.ones(2)),
])
def test_errors_from_inside_func_transforms_carry_no_jax_text(call):
    # JAX adds a note ("JAX has removed its internal frames ...") to exceptions crossing its API boundary
    with pytest.raises(Exception) as ours:
        call(torchlike)
    shown = "".join(traceback.format_exception_only(type(ours.value), ours.value))
    assert "JAX" not in shown and "jax" not in shown, shown


def test_unknown_tensor_attribute_is_torchs_attribute_error():
    with pytest.raises(AttributeError) as ref:
        torch.ones(1).sizee
    with pytest.raises(AttributeError) as ours:
        torchlike.ones(1).sizee
    assert type(ours.value) is AttributeError and str(ours.value) == str(ref.value)
    with pytest.raises(NotImplementedError, match="Tensor.sspaddmm is not implemented in torchlike"):
        torchlike.ones(1).sspaddmm   # a torch API torchlike lacks says so
    assert not hasattr(torchlike.ones(1), "sspaddmm")
