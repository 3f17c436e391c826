"""``Tensor.to`` and ``nn.Module.to`` read their arguments with one parser (torchlike/_to_args.py).

Every call below runs in torch and in torchlike: a call torch accepts must give the same dtype,
device and identity (``copy``); a call torch refuses must raise the same exception type with the same
message.  Each case also states which of the two torch does, so a mistyped case cannot pass by
failing the same way on both sides.
"""
import warnings

import numpy as np
import pytest
import torch

import torchlike
from torchlike._to_args import parse_to
from conftest import not_a_test_bug

OK, RAISES = "ok", "raises"


class Foo:
    pass


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return OK, fn()
    except Exception as e:  # noqa: BLE001 - the exception is the thing compared
        return RAISES, (type(not_a_test_bug(e)).__name__, str(e))


def _same_as_torch(run, expect):
    """``run(lib)`` gives the same summary (or raises the same error) with torch and torchlike."""
    theirs, ours = _outcome(lambda: run(torch)), _outcome(lambda: run(torchlike))
    assert theirs[0] == expect, f"torch: {theirs}"   # the case tests what it says it tests
    assert ours == theirs


# (description, call on a float32 tensor ``t`` of library ``lib``, what torch does)
TENSOR_CASES = [
    ("dtype", lambda lib, t: t.to(lib.float64), OK),
    ("same dtype is self", lambda lib, t: t.to(lib.float32), OK),
    ("same dtype, copy", lambda lib, t: t.to(lib.float32, copy=True), OK),
    ("dtype, flags", lambda lib, t: t.to(lib.float64, True, True), OK),
    ("device", lambda lib, t: t.to("cpu"), OK),
    ("device object", lambda lib, t: t.to(lib.device("cpu")), OK),
    ("device, dtype", lambda lib, t: t.to("cpu", lib.float64), OK),
    ("device, dtype, flags", lambda lib, t: t.to("cpu", lib.float16, False, True), OK),
    ("keywords", lambda lib, t: t.to(device="cpu", dtype=lib.float64), OK),
    ("all keywords", lambda lib, t: t.to(device="cpu", dtype=float, non_blocking=False, copy=False), OK),
    ("dtype keyword, flags", lambda lib, t: t.to(dtype=lib.int32, non_blocking=False, copy=True,
                                                memory_format=lib.preserve_format), OK),
    ("None", lambda lib, t: t.to(None), OK),
    ("nothing", lambda lib, t: t.to(), OK),
    ("None, dtype", lambda lib, t: t.to(None, lib.float64), OK),
    ("None, dtype keyword", lambda lib, t: t.to(None, dtype=lib.float16), OK),
    ("dtype None", lambda lib, t: t.to(dtype=None), OK),
    ("non_blocking only", lambda lib, t: t.to(non_blocking=True), OK),
    ("memory_format None", lambda lib, t: t.to(memory_format=None), OK),
    ("contiguous_format", lambda lib, t: t.to(lib.float64, memory_format=lib.contiguous_format), OK),
    ("python float type", lambda lib, t: t.to(float), OK),
    ("python int type", lambda lib, t: t.to(int), OK),
    ("python bool type", lambda lib, t: t.to(bool), OK),
    ("python complex type", lambda lib, t: t.to(complex), OK),
    ("device, python type", lambda lib, t: t.to("cpu", float), OK),
    ("tensor", lambda lib, t: t.to(lib.ones(1, dtype=lib.float64)), OK),
    ("tensor keyword", lambda lib, t: t.to(tensor=lib.ones(1, dtype=lib.int64), non_blocking=True), OK),
    ("tensor, flags", lambda lib, t: t.to(lib.ones(1, dtype=lib.float16), True, True), OK),
    # a Python number fits the ``tensor`` form: its scalar tensor's dtype
    ("bool value", lambda lib, t: t.to(True), OK),
    ("float value", lambda lib, t: t.to(0.5), OK),
    ("complex value", lambda lib, t: t.to(1 + 2j), OK),
    ("int value, flag", lambda lib, t: t.to(5, True), OK),
    ("float value, flag", lambda lib, t: t.to(1.5, non_blocking=True), OK),
    ("numpy float", lambda lib, t: t.to(np.float32(1)), OK),
    ("numpy int, flag", lambda lib, t: t.to(np.int32(1), True), OK),
    ("tensor number keyword", lambda lib, t: t.to(tensor=3.0), OK),
    # refused
    ("three ints", lambda lib, t: t.to(1, 2, 3), RAISES),
    ("five positional", lambda lib, t: t.to(1, 2, 3, 4, 5), RAISES),
    ("five positional, valid", lambda lib, t: t.to("cpu", lib.float64, False, True, 1), RAISES),
    ("device, int", lambda lib, t: t.to("cpu", 1), RAISES),
    ("device, float value", lambda lib, t: t.to("cpu", 3.0), RAISES),
    ("device, bool", lambda lib, t: t.to("cpu", True), RAISES),
    ("device, None, None", lambda lib, t: t.to("cpu", None, None), RAISES),
    ("None, bool", lambda lib, t: t.to(None, True), RAISES),
    ("dtype, None", lambda lib, t: t.to(lib.float64, None), RAISES),
    ("dtype, device", lambda lib, t: t.to(lib.float64, "cpu"), RAISES),
    ("device, device", lambda lib, t: t.to("cpu", "cpu"), RAISES),
    ("tensor, dtype", lambda lib, t: t.to(t, lib.float64), RAISES),
    ("tensor, device keyword", lambda lib, t: t.to(t, device="cpu"), RAISES),
    ("device, tensor keyword", lambda lib, t: t.to("cpu", tensor=t), RAISES),
    ("device and tensor keywords", lambda lib, t: t.to(device="cpu", tensor=t), RAISES),
    ("dtype twice", lambda lib, t: t.to(lib.float64, dtype=lib.float64), RAISES),
    ("device twice", lambda lib, t: t.to("cpu", dtype=lib.float64, device="cpu"), RAISES),
    ("unknown keyword", lambda lib, t: t.to(foo=1), RAISES),
    ("unknown keyword after dtype", lambda lib, t: t.to(dtype=lib.int32, foo=1), RAISES),
    ("three unknown keywords", lambda lib, t: t.to(a=1, b=2, c=3), RAISES),
    ("valid and unknown keywords", lambda lib, t: t.to(device="cpu", dtype=lib.float64, a=1), RAISES),
    ("memory_format int", lambda lib, t: t.to(memory_format=1), RAISES),
    ("memory_format positional", lambda lib, t: t.to(lib.channels_last), RAISES),
    ("copy int", lambda lib, t: t.to("cpu", copy=1), RAISES),
    ("None, copy int", lambda lib, t: t.to(None, copy=1), RAISES),
    ("non_blocking None", lambda lib, t: t.to(lib.float64, non_blocking=None), RAISES),
    ("non_blocking int", lambda lib, t: t.to(lib.float64, 1), RAISES),
    ("four flags", lambda lib, t: t.to(lib.float64, True, True, True), RAISES),
    ("tensor, three flags", lambda lib, t: t.to(t, True, True, True), RAISES),
    ("tensor None", lambda lib, t: t.to(tensor=None), RAISES),
    ("dtype keyword float value", lambda lib, t: t.to(dtype=3.0), RAISES),
    ("dtype keyword bool value", lambda lib, t: t.to(dtype=True), RAISES),
    ("dtype keyword int", lambda lib, t: t.to(dtype=5), RAISES),
    ("dtype keyword numpy type", lambda lib, t: t.to(dtype=np.float64), RAISES),
    ("device keyword bool", lambda lib, t: t.to(device=True), RAISES),
    ("device keyword dtype", lambda lib, t: t.to(device=lib.float64), RAISES),
    ("float value, device", lambda lib, t: t.to(3.0, "cpu"), RAISES),
    ("bool, device", lambda lib, t: t.to(True, "cpu"), RAISES),
    ("object", lambda lib, t: t.to(object()), RAISES),
    ("own class", lambda lib, t: t.to(Foo()), RAISES),
    ("numpy dtype", lambda lib, t: t.to(np.dtype("float64")), RAISES),
    ("containers", lambda lib, t: t.to(1, [1], (1,), {}), RAISES),
    ("numpy scalar as dtype", lambda lib, t: t.to(1, np.float32(1)), RAISES),
    ("Size", lambda lib, t: t.to(1, lib.float64, lib.Size([1])), RAISES),
    ("memory_format, str", lambda lib, t: t.to(1, lib.channels_last, "a"), RAISES),
    ("class", lambda lib, t: t.to(1, lib.device), RAISES),
    ("Parameter", lambda lib, t: t.to(1, 2, lib.nn.Parameter(lib.ones(1))), RAISES),
    ("negative index", lambda lib, t: t.to(-1), RAISES),
    ("negative index keyword", lambda lib, t: t.to(device=-1), RAISES),
    ("unknown device type", lambda lib, t: t.to("foo"), RAISES),
]


@pytest.mark.parametrize("call,expect", [c[1:] for c in TENSOR_CASES], ids=[c[0] for c in TENSOR_CASES])
def test_tensor_to_same_as_torch(call, expect):
    def run(lib):
        t = lib.ones(2)
        r = call(lib, t)
        return str(r.dtype), r.device.type, r is t
    _same_as_torch(run, expect)


@pytest.mark.skipif(torchlike.cuda.is_available(), reason="an accelerator index is valid where there is a GPU")
def test_accelerator_index_without_accelerator():
    _same_as_torch(lambda lib: str(lib.ones(2).to(0).device), RAISES)
    _same_as_torch(lambda lib: _module_summary(lib.nn.Linear(2, 2).to(device=1)), RAISES)


def _module_summary(m):
    return [(name, str(p.dtype), p.device.type) for name, p in m.state_dict().items()]


# (description, call on ``lib.nn`` modules, what torch does)
MODULE_CASES = [
    ("device, dtype", lambda lib: lib.nn.Linear(2, 2).to("cpu", lib.float64), OK),
    ("dtype", lambda lib: lib.nn.Linear(2, 2).to(lib.float16), OK),
    ("dtype keyword", lambda lib: lib.nn.Linear(2, 2).to(dtype=lib.float64), OK),
    ("device", lambda lib: lib.nn.Linear(2, 2).to(lib.device("cpu")), OK),
    ("python float type", lambda lib: lib.nn.Linear(2, 2).to(float), OK),
    ("None", lambda lib: lib.nn.Linear(2, 2).to(None), OK),
    ("None, None", lambda lib: lib.nn.Linear(2, 2).to(None, None), OK),
    ("nothing", lambda lib: lib.nn.Linear(2, 2).to(), OK),
    ("non_blocking", lambda lib: lib.nn.Linear(2, 2).to("cpu", non_blocking=True), OK),
    ("tensor", lambda lib: lib.nn.Linear(2, 2).to(lib.ones(1, dtype=lib.float64)), OK),
    ("tensor keyword", lambda lib: lib.nn.Linear(2, 2).to(tensor=lib.ones(1, dtype=lib.float16)), OK),
    ("tensor, flag", lambda lib: lib.nn.Linear(2, 2).to(lib.ones(1, dtype=lib.float16), True), OK),
    ("float value", lambda lib: lib.nn.Linear(2, 2).to(3.0), OK),
    ("memory_format", lambda lib: lib.nn.Linear(2, 2).to(memory_format=lib.channels_last), OK),
    ("memory_format, 4-d weight", lambda lib: lib.nn.Conv2d(2, 2, 3).to(lib.float64,
                                                                       memory_format=lib.channels_last), OK),
    ("integer buffers keep their dtype", lambda lib: lib.nn.BatchNorm1d(2).to(lib.float64), OK),
    ("dtype, memory_format None", lambda lib: lib.nn.Linear(2, 2).to(lib.float64, memory_format=None), OK),
    # refused
    ("int32", lambda lib: lib.nn.Linear(2, 2).to(lib.int32), RAISES),
    ("int32 keyword", lambda lib: lib.nn.Linear(2, 2).to(dtype=lib.int32), RAISES),
    ("uint8", lambda lib: lib.nn.Linear(2, 2).to(lib.uint8), RAISES),
    ("bool dtype", lambda lib: lib.nn.Linear(2, 2).to(lib.bool), RAISES),
    ("python int type", lambda lib: lib.nn.Linear(2, 2).to(int), RAISES),
    ("python bool type", lambda lib: lib.nn.Linear(2, 2).to(bool), RAISES),
    ("bool value", lambda lib: lib.nn.Linear(2, 2).to(True), RAISES),
    ("integer tensor", lambda lib: lib.nn.Linear(2, 2).to(lib.ones(1, dtype=lib.int32)), RAISES),
    ("three ints", lambda lib: lib.nn.Linear(2, 2).to(1, 2, 3), RAISES),
    ("five positional", lambda lib: lib.nn.Linear(2, 2).to(5, 6, 7, 8, 9), RAISES),
    ("device, int", lambda lib: lib.nn.Linear(2, 2).to("cpu", 1), RAISES),
    ("dtype, device", lambda lib: lib.nn.Linear(2, 2).to(lib.float64, "cpu"), RAISES),
    ("tensor, dtype", lambda lib: lib.nn.Linear(2, 2).to(lib.ones(1), lib.float64), RAISES),
    ("unknown keyword", lambda lib: lib.nn.Linear(2, 2).to(foo=1), RAISES),
    ("unknown keywords", lambda lib: lib.nn.Linear(2, 2).to(dtype=lib.float16, foo=1, bar=2), RAISES),
    ("device and tensor keywords", lambda lib: lib.nn.Linear(2, 2).to(device="cpu", tensor=lib.ones(1)), RAISES),
    ("memory_format int", lambda lib: lib.nn.Linear(2, 2).to(memory_format=1), RAISES),
    ("copy", lambda lib: lib.nn.Linear(2, 2).to("cpu", copy=True), RAISES),
    ("copy False", lambda lib: lib.nn.Linear(2, 2).to(lib.float64, copy=False), RAISES),
    ("copy positional", lambda lib: lib.nn.Linear(2, 2).to(lib.float64, False, False), RAISES),
    ("copy None", lambda lib: lib.nn.Linear(2, 2).to(copy=None), RAISES),
    ("non_blocking int", lambda lib: lib.nn.Linear(2, 2).to(lib.float64, 1), RAISES),
    ("negative index", lambda lib: lib.nn.Linear(2, 2).to(-1), RAISES),
    ("unknown device type", lambda lib: lib.nn.Linear(2, 2).to("foo"), RAISES),
]


@pytest.mark.parametrize("call,expect", [c[1:] for c in MODULE_CASES], ids=[c[0] for c in MODULE_CASES])
def test_module_to_same_as_torch(call, expect):
    _same_as_torch(lambda lib: _module_summary(call(lib)), expect)


def test_module_to_returns_self_and_keeps_parameters():
    m = torchlike.nn.Linear(2, 2)
    weight = m.weight
    assert m.to(torchlike.float64) is m
    assert m.weight is weight and weight.dtype == torchlike.float64


def test_module_to_complex_warns_like_torch():
    def caught(lib):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            m = lib.nn.Linear(2, 2).to(lib.complex64)
        return str(m.weight.dtype), [str(w.message) for w in seen if w.category is UserWarning
                                     and "Complex modules" in str(w.message)]

    theirs, ours = caught(torch), caught(torchlike)
    assert len(theirs[1]) == 1
    assert ours == theirs


def test_parse_to_result():
    """The parser's own result: (device, dtype, non_blocking, copy, memory_format); copy None when absent."""
    T = torchlike.Tensor
    assert parse_to(T, ("cpu", torchlike.float64), {}) == (torchlike.device("cpu"), torchlike.float64,
                                                          False, None, None)
    assert parse_to(T, (torchlike.float16, True, False), {}) == (None, torchlike.float16, True, False, None)
    assert parse_to(T, (), {"memory_format": torchlike.channels_last}) == (None, None, False, None,
                                                                           torchlike.channels_last)
    other = torchlike.ones(1, dtype=torchlike.int16)
    assert parse_to(T, (other,), {"copy": True}) == (torchlike.device("cpu"), torchlike.int16, False, True, None)
    assert parse_to(T, (2.5,), {}) == (torchlike.device("cpu"), torchlike.float64, False, None, None)
    assert parse_to(T, (float,), {}) == (None, torchlike.float64, False, None, None)
