"""Bad input gets torch's exception, never JAX's; nothing a user asks for aborts the interpreter.

Every op in the table is fed wrong shapes and dtypes and must not raise a JAX/XLA/numpy exception or
show JAX's text; the common mistakes (broadcasting, matmul, cat, where, masked_fill, in-place ops,
oversized or overflowing sizes, negative dims) are run in torch too and must raise the same exception
type with the same message.
"""
import re
import traceback
import warnings

import pytest

import torchlike
from torchlike._errors import memory_limit
from torchlike._ops.registry import TABLE

torch = pytest.importorskip("torch", reason="torch is the oracle for the expected exceptions")

_JAX_TEXT = re.compile(r"\b(jax\w*|jnp|lax|xla|stablehlo|mlir)\b|[\\/]jax(lib)?[\\/]", re.I)


def _outcome(lib, code):
    """(exception type name, message) of running ``code`` with ``t`` bound to ``lib``; ("ok", "")."""
    try:
        r = eval(code, {"t": lib})
        if isinstance(r, torchlike.Tensor):
            r.tolist() if r.numel() < 100 else r.sum().item()
    except Exception as e:  # noqa: BLE001 - the exception is what we compare
        return type(e).__name__, str(e)
    return "ok", ""


def _assert_clean(e):
    """No JAX type, text, note or frame in ``e`` or in any exception printed with it (the source lines of
    torchlike's own frames may name jax: they are torchlike's code, not a JAX error)."""
    seen = traceback.TracebackException.from_exception(e)
    while seen is not None:
        mod = (seen.exc_type.__module__ if seen.exc_type else "").split(".")[0]
        assert mod not in ("jax", "jaxlib", "numpy"), f"{seen.exc_type}: {seen}"
        text = "".join(seen.format_exception_only())
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
