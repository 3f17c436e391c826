"""Advanced indexing ``x[idx]`` of host-resident tensors runs in numpy (``_host_ops._gather``): values, dtypes,
shapes and errors equal torch's; index tensors are read on the host without being moved; the fast path steps
aside for autograd, device-resident tensors and tracing."""
import numpy as np
import pytest

import torchlike
from conftest import assert_same, not_a_test_bug
from torchlike import _host_ops  # noqa: F401  (installs the handler, as ``import torchlike`` does)

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")

DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def _src(mod, dtype, shape=(5, 4, 3)):
    a = np.arange(int(np.prod(shape))).reshape(shape) % 7 - 3
    return mod.tensor(a.tolist(), dtype=getattr(mod, dtype))


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # the comparison is of type and message
        return "err", (type(not_a_test_bug(e)), str(e))


INDEXES = {
    "1d": lambda m: (m.tensor([3, 1, -1, 0, 3]),),
    "2d": lambda m: (m.tensor([[0, 2], [4, -5]]),),
    "int32": lambda m: (m.tensor([1, 2, 0], dtype=m.int32),),
    "empty": lambda m: (m.tensor([], dtype=m.int64),),
    "0d_array": lambda m: (m.tensor(2, dtype=m.int16),),  # not int32/int64: an advanced index of shape ()
    "dim1": lambda m: (slice(None), m.tensor([3, 0, 0])),
    "two": lambda m: (m.tensor([0, 4, 1]), m.tensor([3, 2, -1])),
    "separated": lambda m: (m.tensor([0, 4]), slice(None), m.tensor([2, 1])),
    "broadcast": lambda m: (m.tensor([[0], [4]]), m.tensor([1, 3, 2])),
    "list": lambda m: ([4, 0, 2],),
    "out_of_bounds": lambda m: (m.tensor([0, 5]),),
    "too_negative": lambda m: (m.tensor([-6]),),
    "mismatch": lambda m: (m.tensor([0, 1]), m.tensor([0, 1, 2])),
    "int16_1d": lambda m: (m.tensor([1, 2], dtype=m.int16),),  # one tensor, not int32/int64: torch's IndexError
    "mask": lambda m: (m.tensor([True, False, True, False, True]),),
    "0d_int64": lambda m: (m.tensor(-2),),  # a select, not an advanced index
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("which", sorted(INDEXES))
def test_gather_matches_torch(dtype, which):
    def run(mod):
        x = _src(mod, dtype)
        ix = INDEXES[which](mod)
        return x[ix if len(ix) > 1 else ix[0]]
    ok_t, want = _outcome(lambda: run(torch))
    ok_l, got = _outcome(lambda: run(torchlike))
    assert ok_t == ok_l, (want, got)
    if ok_t == "ok":
        assert_same(got, want, rtol=0, atol=0)
    else:
        assert got[0] is want[0] and got[1] == want[1]


def test_host_path_taken_and_index_stays_host():
    x = torchlike.tensor(np.arange(40.0).reshape(8, 5))
    ix = torchlike.tensor([7, 0, -2])
    assert x._host_array() is not None and ix._host_array() is not None
    r = x[ix]
    assert r._host_array() is not None  # computed in numpy, still host-resident
    assert ix._host_array() is not None  # the index was read where it is (not moved to the device)
    assert_same(r, torch.tensor(np.arange(40.0).reshape(8, 5))[torch.tensor([7, 0, -2])], rtol=0, atol=0)


def test_result_is_a_copy_owned_by_the_result():
    x, tx = torchlike.arange(6), torch.arange(6)
    r, tr = x[torchlike.tensor([1, 1, 2])], tx[torch.tensor([1, 1, 2])]
    r[0] = 100
    tr[0] = 100
    assert_same(x, tx, rtol=0, atol=0)
    assert_same(r, tr, rtol=0, atol=0)
    x[1] = -7
    tx[1] = -7
    assert_same(r, tr, rtol=0, atol=0)


def test_autograd_and_device_tensors_keep_the_device_path():
    w = torchlike.arange(12.0).reshape(4, 3).requires_grad_()
    tw = torch.arange(12.0).reshape(4, 3).requires_grad_()
    out, tout = w[torchlike.tensor([0, 3, 3])], tw[torch.tensor([0, 3, 3])]
    assert out.grad_fn is not None and out.grad_fn.name() == tout.grad_fn.name()
    out.sum().backward()
    tout.sum().backward()
    assert_same(w.grad, tw.grad, rtol=0, atol=0)
    d = torchlike.arange(12.0).reshape(4, 3) * 2.5  # (a float product: computed on the device)
    d._value  # noqa: B018  (make sure it is a device tensor)
    assert_same(d[torchlike.tensor([2, -1])], (torch.arange(12.0).reshape(4, 3) * 2.5)[torch.tensor([2, -1])],
                rtol=0, atol=0)


def test_compiled_function_indexes_like_eager():
    x = torchlike.arange(10) * 3

    @torchlike.compile
    def f(i):
        return x[i] + 1
    i = torchlike.tensor([9, 0, 4])
    assert_same(f(i), (torch.arange(10) * 3)[torch.tensor([9, 0, 4])] + 1, rtol=0, atol=0)


SOURCES = {  # ``getitem``'s one-index-tensor shortcut on each kind of source (host, device, lazy view, grad, 0-d)
    "host": lambda m: m.arange(24.0).reshape(6, 4),
    "device": lambda m: m.arange(24.0).reshape(6, 4) * 1.5,
    "view": lambda m: (m.arange(24.0) * 1.5).view(6, 4),
    "transposed": lambda m: (m.arange(24.0) * 1.5).view(4, 6).t(),
    "int32": lambda m: m.arange(24, dtype=m.int32).reshape(6, 4),
    "zero_d": lambda m: m.tensor(3.0),
}


@pytest.mark.parametrize("src", sorted(SOURCES))
@pytest.mark.parametrize("ix", [[5, 0, -1], [[1, 2], [-6, 3]], [6], []])
def test_one_index_tensor_matches_torch_on_every_source(src, ix):
    """``x[idx]`` by one int64/int32 tensor (getitem's shortcut past parse_index): values, dtype, shape and errors
    as torch's on host, device, lazy-view, transposed and 0-d sources; int32 indices too."""
    def run(mod, dt):
        return SOURCES[src](mod)[mod.tensor(ix, dtype=getattr(mod, dt))]
    for dt in ("int64", "int32"):
        ok_t, want = _outcome(lambda: run(torch, dt))
        ok_l, got = _outcome(lambda: run(torchlike, dt))
        assert ok_t == ok_l, (want, got)
        if ok_t == "ok":
            assert_same(got, want, rtol=0, atol=0)
        else:
            assert got[0] is want[0] and got[1] == want[1]


def test_one_index_tensor_records_torch_grad():
    w = torchlike.arange(12.0).reshape(4, 3).requires_grad_()
    tw = torch.arange(12.0).reshape(4, 3).requires_grad_()
    for mod, x in ((torchlike, w), (torch, tw)):
        (x.view(6, 2)[mod.tensor([[5, 0], [5, -6]])] * mod.tensor([1.0, 2.0])).sum().backward()
    assert_same(w.grad, tw.grad, rtol=0, atol=0)
