"""Host-resident CPU tensors (``Tensor._from_host``): small creation calls build a numpy array that moves to
the device on the first op needing it.  Everything observable is compared with torch: dtypes, shapes,
values, errors, in-place and view semantics, autograd, pickles and default_collate; plus that metadata and
host reads (item/tolist/numpy/repr/pickle/collate) do not move the tensor, and that nothing is host-resident
under tracing."""
import collections
import io
import pickle

import jax
import numpy as np
import pytest
import torch

import torchlike
from tests.conftest import assert_same, raises_like_torch, same_as_torch
from torchlike.utils.data import default_collate

X = np.array([0.5, -1.0, 2.0], np.float32)


def _host(t):
    return t._host_array() is not None


# ---- creation: torch's dtypes and values, host-resident in torchlike ---------------------------------------
CREATIONS = {
    "full_float": lambda m: m.full((2, 3), 1.5),
    "full_int": lambda m: m.full((4,), 7),
    "full_bool": lambda m: m.full((2,), True),
    "full_complex": lambda m: m.full((2,), 1 + 2j),
    "full_neg_zero": lambda m: m.full((2,), -0.0),
    "full_int8": lambda m: m.full((3,), -5, dtype=m.int8),
    "full_uint8": lambda m: m.full((3,), 200, dtype=m.uint8),
    "full_half": lambda m: m.full((3,), 0.1, dtype=m.float16),
    "full_bf16": lambda m: m.full((3,), 0.1, dtype=m.bfloat16),
    "full_f64": lambda m: m.full((3,), 0.1, dtype=m.float64),
    "full_int_to_float": lambda m: m.full((3,), 3, dtype=m.float32),
    "full_bool_dtype": lambda m: m.full((3,), 2, dtype=m.bool),
    "full_c128": lambda m: m.full((1,), 3, dtype=m.complex128),
    "full_scalar_shape": lambda m: m.full((), 2.0),
    "full_list_size": lambda m: m.full([2, 2], 4),
    "full_nan_inf": lambda m: m.full((2,), float("nan")) + 0 * m.full((2,), float("inf")).isinf(),
    "zeros": lambda m: m.zeros(2, 3),
    "zeros_tuple": lambda m: m.zeros((2, 3), dtype=m.int32),
    "zeros_size_kw": lambda m: m.zeros(size=(4,)),
    "zeros_list": lambda m: m.zeros([2, 2]),
    "full_tuple_of_list": lambda m: m.full(([2, 2])[:], 1.0),
    "zeros_empty_dim": lambda m: m.zeros(0, 3),
    "ones": lambda m: m.ones(3, dtype=m.int64),
    "ones_bool": lambda m: m.ones(2, dtype=m.bool),
    "ones_complex": lambda m: m.ones(2, dtype=m.complex64),
    "tensor_ints": lambda m: m.tensor([1, 2, 3]),
    "tensor_floats": lambda m: m.tensor([[1.0, 2.0], [3.0, 4.0]]),
    "tensor_bools": lambda m: m.tensor([True, False]),
    "tensor_mixed": lambda m: m.tensor([1, 2.5, True]),
    "tensor_complex": lambda m: m.tensor([1, 2j]),
    "tensor_scalar_int": lambda m: m.tensor(3),
    "tensor_scalar_float": lambda m: m.tensor(3.25),
    "tensor_scalar_bool": lambda m: m.tensor(False),
    "tensor_dtype": lambda m: m.tensor([1, 2], dtype=m.float64),
    "tensor_float_to_int": lambda m: m.tensor([1.7, -2.7], dtype=m.int32),
    "tensor_empty": lambda m: m.tensor([]),
    "tensor_ndarray_f64": lambda m: m.tensor(np.arange(6.0).reshape(2, 3)),
    "tensor_ndarray_i32": lambda m: m.tensor(np.arange(4, dtype=np.int32)),
    "tensor_ndarray_u8": lambda m: m.tensor(np.arange(4, dtype=np.uint8)),
    "tensor_ndarray_bool": lambda m: m.tensor(np.array([True, False])),
    "tensor_ndarray_noncontig": lambda m: m.tensor(np.arange(12.0).reshape(3, 4)[:, ::2]),
    "tensor_np_scalar": lambda m: m.tensor(np.float32(2.5)),
    "tensor_of_tensor": lambda m: m.tensor(m.full((2,), 3.0)),
    "as_tensor_ndarray": lambda m: m.as_tensor(np.arange(3, dtype=np.int16)),
    "as_tensor_list": lambda m: m.as_tensor([1.0, 2.0], dtype=m.float64),
    "from_numpy": lambda m: m.from_numpy(np.arange(5, dtype=np.float32)),
    "from_numpy_c64": lambda m: m.from_numpy(np.array([1 + 1j], np.complex64)),
    "arange_int": lambda m: m.arange(5),
    "arange_float": lambda m: m.arange(0, 1, 0.25),
    "arange_dtype": lambda m: m.arange(2, 10, 3, dtype=m.float64),
    "linspace": lambda m: m.linspace(0, 1, 5),
    "eye": lambda m: m.eye(3, 2),
}


@pytest.mark.parametrize("name", sorted(CREATIONS))
def test_creation_matches_torch_and_is_host(name):
    fn = CREATIONS[name]
    same_as_torch(lambda m: fn(m), grad=False)
    t = fn(torchlike)
    # (from_numpy / as_tensor of an array: the tensor shares the array's memory and is read from it)
    assert _host(t) or t._host_array(True) is not None or name == "full_nan_inf", f"{name}: not host-resident"


def test_empty_dtype_and_shape():
    for m_args in [((2, 3), {}), ((4,), {"dtype": "int64"})]:
        args, kw = m_args
        a = torch.empty(*args, **{k: getattr(torch, v) for k, v in kw.items()})
        b = torchlike.empty(*args, **{k: getattr(torchlike, v) for k, v in kw.items()})
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype) and _host(b)


def test_default_dtype_float64():
    def fn(m):
        m.set_default_dtype(m.float64)
        try:
            return m.full((2,), 1.5), m.zeros(2), m.tensor([1.5]), m.arange(0.0, 2.0), m.tensor(2.0)
        finally:
            m.set_default_dtype(m.float32)
    same_as_torch(fn, grad=False)


@pytest.mark.parametrize("call", [
    lambda m: m.full((-1,), 1.0),
    lambda m: m.zeros(-2),
    lambda m: m.ones(2, -1),
    lambda m: m.tensor([[1, 2], [3]]),
    lambda m: m.tensor(["a"]),
    lambda m: m.from_numpy([1, 2]),
    lambda m: m.arange(0, 5, 0),
    lambda m: m.zeros(2.5),
    lambda m: m.zeros((2.5,)),
    lambda m: m.zeros(2, 2.5),
    lambda m: m.ones(2.5),
    lambda m: m.full(2.5, 1.0),
    lambda m: m.full((2, 2.5), 1.0),
    lambda m: m.tensor([1, "a"]),
    lambda m: m.tensor([2 ** 70]),
    lambda m: m.tensor(2 ** 63),
])
def test_creation_errors_match_torch(call):
    raises_like_torch(call)


def test_large_and_grad_creations_are_device_tensors():
    assert not _host(torchlike.zeros(1 << 17))
    assert not _host(torchlike.ones(3, requires_grad=True))
    assert not _host(torchlike.tensor([1.0], requires_grad=True))


# ---- metadata and host reads leave the tensor host-resident ------------------------------------------------
def test_metadata_and_host_reads_do_not_materialise():
    t = torchlike.arange(6).reshape(2, 3) if False else torchlike.full((2, 3), 2.5)
    r = torch.full((2, 3), 2.5)
    assert t.shape == r.shape and t.size() == r.size() and t.size(1) == r.size(1)
    assert str(t.dtype) == str(r.dtype) and t.dim() == r.dim() and t.ndim == r.ndim and t.numel() == r.numel()
    assert str(t.device) == str(r.device) and t.stride() == r.stride() and t.is_contiguous()
    assert t.requires_grad is False and t.is_leaf and t.grad_fn is None and len(t) == 2
    assert t.element_size() == r.element_size() and t.nbytes == r.nbytes and t.storage_offset() == 0
    assert t.tolist() == r.tolist() and repr(t) == repr(r) and str(t) == str(r)
    s = torchlike.tensor(7)
    assert s.item() == 7 and int(s) == 7 and float(s) == 7.0 and bool(s) and [0] * 8 == [0] * 8
    assert list(range(10))[s] == 7 and f"{torchlike.tensor(1.5):.2f}" == "1.50"
    pickle.dumps(t)
    assert _host(t) and _host(s)
    # numpy() shares the tensor's memory, as torch's does: the tensor's value then lives in that array
    np.testing.assert_array_equal(t.numpy(), r.numpy())
    np.testing.assert_array_equal(np.asarray(t), np.asarray(r))
    assert t.numpy().flags.writeable and r.numpy().flags.writeable


def test_item_and_index_errors_on_host_arrays():
    raises_like_torch(lambda m: m.full((3,), 1.0).item())
    raises_like_torch(lambda m: [1, 2, 3][m.tensor([1, 2])])
    raises_like_torch(lambda m: bool(m.zeros(2)))
    raises_like_torch(lambda m: len(m.tensor(3)))


def test_first_op_moves_to_device_once():
    t = torchlike.full((3,), 2.0)
    u = t.exp()  # an op without a host path (torchlike/_host_ops.py) moves it
    assert not _host(t) and not _host(u) and t._vbase is None and isinstance(t._x, jax.Array)
    assert t.tolist() == [2.0, 2.0, 2.0] and u.tolist() == pytest.approx([7.389056] * 3)
    h = torchlike.full((3,), 2.0)
    v = h + 1  # add of host tensors runs in numpy: both stay host-resident
    assert _host(h) and _host(v) and v.tolist() == [3.0, 3.0, 3.0]


# ---- aliasing ----------------------------------------------------------------------------------------------
def test_tensor_copies_the_callers_array_like_torch():
    def fn(m):
        a = np.arange(4, dtype=np.float32)
        t = m.tensor(a)
        a[0] = 99
        s = m.tensor(t)
        return t, s
    same_as_torch(fn, grad=False)


def test_from_numpy_and_as_tensor_share_as_torch_and_stay_host_readable():
    a = np.arange(4, dtype=np.float32)
    t, u = torchlike.from_numpy(a), torchlike.as_tensor(a)
    a[0] = 99  # torch: both tensors see the write (they share the array's memory)
    r = torch.from_numpy(np.array([99, 1, 2, 3], dtype=np.float32))
    assert t.tolist() == u.tolist() == r.tolist() and repr(t) == repr(r)
    assert t._host_array(True) is not None and u._host_array(True) is not None  # printing, collation read it


# ---- in-place ops, views and autograd: torch's semantics ---------------------------------------------------
def test_inplace_and_views_match_torch():
    def fn(m):
        t = m.zeros(4)
        v = t[1:3]
        t.add_(1)
        v.mul_(3)
        t[0] = 5
        w = t.view(2, 2)
        w[1, 1] = -1
        f = m.full((3,), 2)
        f.fill_(4)
        z = m.ones(2, 2)
        zt = z.t()
        zt[0, 1] = 7
        a = m.arange(6)
        a[a > 3] = 0
        r = m.tensor([1.0, 2.0])
        r += 1
        return t, v, w, f, z, zt, a, r, t._version > 0
    same_as_torch(fn, grad=False)


def test_views_of_host_tensors_share_storage():
    def fn(m):
        t = m.arange(6.0)
        rows = t.view(2, 3)
        first = t[0]
        t[0] = 10.0
        rows[1].zero_()
        return t, rows, first, t.data_ptr() == rows.data_ptr()
    same_as_torch(fn, grad=False)


def test_inplace_with_autograd_on_host_tensors_matches_torch():
    def fn(m, x):
        buf = m.zeros(3)
        buf.copy_(x)
        acc = m.zeros(())
        acc += (x * x).sum()
        out = m.zeros(3)
        out[1] = x[0] * 2
        fill = m.full((3,), 1.0)
        fill.mul_(x)
        return buf * 2, acc, out, fill, buf.requires_grad, buf.is_leaf
    same_as_torch(fn, X)


def test_requires_grad_on_host_tensor():
    grads = []
    for m in (torch, torchlike):
        t = m.full((3,), 2.0)
        t.requires_grad_()
        u = m.tensor([1.0, 2.0, 3.0]).requires_grad_(True)
        ((t * u).sum() + (t ** 2).sum()).backward()
        grads.append((t.grad, u.grad, t.is_leaf, u.is_leaf))
    assert_same(grads[1][0], grads[0][0])
    assert_same(grads[1][1], grads[0][1])
    assert grads[1][2:] == grads[0][2:]


def test_no_grad_inplace_and_detach():
    def fn(m):
        t = m.ones(3)
        with m.no_grad():
            t.add_(2)
        d = m.full((2,), 1.5).detach()
        d.add_(1)
        e = m.tensor([4.0])
        f = e.data
        f.add_(1)
        return t, d, e, f
    same_as_torch(fn, grad=False)


# ---- pickles: plain pickle and torch's file format ---------------------------------------------------------
def test_pickle_round_trip():
    for t in (torchlike.full((2, 2), 1.5), torchlike.tensor([1, 2, 3]), torchlike.tensor(True)):
        u = pickle.loads(pickle.dumps(t))
        assert _host(u)
        assert_same(u, torch.tensor(t.numpy()))


def test_torch_save_load_both_ways():
    a, b = torchlike.arange(6).reshape(2, 3), torchlike.full((3,), 0.5)
    assert _host(b)
    buf = io.BytesIO()
    torchlike.save({"a": a, "b": b, "view": b[1:]}, buf)
    buf.seek(0)
    got = torch.load(buf)
    assert_same(torchlike.tensor(got["a"].numpy()), torch.arange(6).reshape(2, 3))
    assert torch.equal(got["b"], torch.full((3,), 0.5)) and torch.equal(got["view"], torch.full((2,), 0.5))
    assert got["view"].untyped_storage().data_ptr() == got["b"].untyped_storage().data_ptr()
    buf = io.BytesIO()
    torch.save({"x": torch.full((2,), 3.0), "n": torch.tensor(5)}, buf)
    buf.seek(0)
    back = torchlike.load(buf)
    assert back["x"].tolist() == [3.0, 3.0] and str(back["x"].dtype) == "torch.float32"
    assert back["n"].item() == 5 and str(back["n"].dtype) == "torch.int64"
    buf = io.BytesIO()
    torchlike.save(torchlike.tensor([1.0, 2.0]), buf)
    buf.seek(0)
    assert torch.equal(torch.load(buf), torch.tensor([1.0, 2.0]))


# ---- nothing host-resident under tracing -------------------------------------------------------------------
def test_creation_under_compile_and_transforms_is_traced():
    seen = []

    def f(x):
        z = torchlike.zeros(3)
        t = torchlike.tensor([1.0, 2.0, 3.0])
        seen.append((_host(z), _host(t)))
        return x + z + t

    out = torchlike.compile(f)(torchlike.ones(3))
    assert out.tolist() == [2.0, 3.0, 4.0] and seen and not any(any(s) for s in seen)
    seen.clear()
    out = torchlike.func.vmap(f)(torchlike.ones(2, 3))
    assert out.tolist() == [[2.0, 3.0, 4.0]] * 2 and seen and not any(any(s) for s in seen)
    seen.clear()
    jax.jit(lambda a: f(torchlike.from_jax(a)).jax())(jax.numpy.ones(3))
    assert seen and not any(any(s) for s in seen)


def test_host_tensor_into_compiled_function_matches_eager():
    def step(x, y):
        return (x * 2 + y).sum()

    c = torchlike.compile(step)
    for _ in range(2):
        assert c(torchlike.full((3,), 1.5), torchlike.arange(3.0)).item() == torch.full((3,), 1.5).mul(2).add(
            torch.arange(3.0)).sum().item()


# ---- default_collate -------------------------------------------------------------------------------------
Point = collections.namedtuple("Point", ["x", "y"])

BATCHES = {
    "tensor_int": lambda m: [(m.full((4,), float(i)), i % 3) for i in range(5)],
    "dict": lambda m: [{"x": m.full((2,), float(i)), "y": (m.tensor(i), m.zeros(3))} for i in range(4)],
    "namedtuple": lambda m: [Point(m.tensor([i, i]), float(i)) for i in range(3)],
    "lists": lambda m: [[m.ones(2), [i, True]] for i in range(3)],
    "numpy": lambda m: [np.full((2, 2), i, np.int16) for i in range(3)],
    "numpy_scalars": lambda m: [np.float32(i) for i in range(3)],
    "floats": lambda m: [0.5, 1.5],
    "bools": lambda m: [True, False],
    "mixed_numbers": lambda m: [1, 2.5],
    "strings": lambda m: [("a", m.tensor(1.0)), ("b", m.tensor(2.0))],
    "scalars0d": lambda m: [m.tensor(1.5), m.tensor(2.5)],
    "mixed_dtypes": lambda m: [m.tensor([1, 2]), m.tensor([1.5, 2.5])],
    "host_and_device": lambda m: [m.ones(2), m.ones(2) + 1],
}


@pytest.mark.parametrize("name", sorted(BATCHES))
def test_default_collate_matches_torch(name):
    same_as_torch(lambda m: m.utils.data.default_collate(BATCHES[name](m)), grad=False)


def test_collated_host_batches_stay_host():
    out = default_collate(BATCHES["tensor_int"](torchlike))
    assert _host(out[0]) and _host(out[1])
    out = default_collate(BATCHES["dict"](torchlike))
    assert all(_host(t) for t in (out["x"], out["y"][0], out["y"][1]))
    assert _host(default_collate(BATCHES["numpy"](torchlike)))
    assert _host(default_collate([1.0, 2.0])) and _host(default_collate([1, 2]))


@pytest.mark.parametrize("batch", [
    lambda m: [m.ones(2), m.ones(3)],
    lambda m: [(m.ones(2),), (m.ones(2), m.ones(2))],
    lambda m: [object(), object()],
    lambda m: [np.array(["a"]), np.array(["b"])],
    lambda m: [2 ** 70, 1],
])
def test_default_collate_errors_match_torch(batch):
    raises_like_torch(lambda m: m.utils.data.default_collate(batch(m)), match=None)


def test_worker_transport_keeps_batches_host():
    from torchlike.utils.data._worker import _pack, _unpack
    batch = default_collate(BATCHES["dict"](torchlike))
    packed = pickle.loads(pickle.dumps(_pack(batch)))
    out = _unpack(packed)
    assert _host(out["x"]) and out["x"].tolist() == batch["x"].tolist()
    assert _host(batch["x"])  # packing read the host array, without a transfer


# ---- host tensors where code asks whether a tensor is a view -----------------------------------------------
def test_out_resize_and_contiguous_match_torch():
    def fn(m):
        o = m.empty(0)
        m.add(m.ones(2, 2), 1, out=o)
        r = m.zeros(2)
        r.resize_(4)
        r.fill_(3)
        c = m.full((2, 3), 1.5)
        return o, r.shape, r, c.contiguous(), c.contiguous().is_contiguous(), c.is_set_to(c)
    same_as_torch(fn, grad=False)


def test_autograd_function_returning_host_tensors_matches_torch():
    def fn(m, x):
        class Scale(m.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2, m.zeros(2)

            @staticmethod
            def backward(ctx, g, _):
                return g * 2

        y, z = Scale.apply(x)
        return y, z, z.requires_grad
    same_as_torch(fn, X)


def test_compiled_function_with_fresh_host_batches_compiles_once():
    # traces counted on an attribute: a list appended to would be a Python side effect, which makes the compiled
    # function run eagerly after its first call (as torch.compile replays it per call)
    def step(x, y):
        step.traces += 1
        return (x * y).sum()

    step.traces = 0
    c = torchlike.compile(step)
    for k in range(4):
        x, y = torchlike.full((3,), float(k)), torchlike.arange(3.0)
        assert c(x, y).item() == torch.full((3,), float(k)).mul(torch.arange(3.0)).sum().item()
    assert step.traces == 1 and c.compile_count == 1


def test_reads_of_a_host_tensor_moved_to_the_device_follow_its_writes():
    """tolist()/numpy()/np.asarray of a small host tensor after it moved to the device (iterated, used by a
    device op) read its host copy (``_views.host_copy``) until it is written, then the new values: as torch."""
    def run(m):
        t = m.tensor([3, 1, 4, 1, 5])
        out = [list(t), t.tolist(), t.numpy().tolist(), np.asarray(t).tolist()]
        t.add_(2)
        out += [t.tolist(), t.numpy().tolist()]
        t[1] = -9
        out += [t.tolist(), np.asarray(t).tolist()]
        f = m.tensor([[0.5, 1.5], [2.5, 3.5]])
        out.append(f * 2.0 + f.sum())  # a device op reads it
        out += [f.tolist(), [r.tolist() for r in f], f.numpy().tolist()]
        f.mul_(3)
        out += [f.tolist(), f]
        return out
    same_as_torch(run, grad=False, rtol=0, atol=0)


def test_host_tensor_given_new_data_then_written_in_place():
    def fn(m):
        t = m.ones(3)
        t.data = m.zeros(3)
        return t.add_(1), t._version
    same_as_torch(fn, grad=False)
