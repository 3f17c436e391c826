"""The numpy bridge against torch: ``numpy()``, ``np.asarray``, ``from_numpy`` and ``as_tensor`` share memory
(writes through either side are seen by the other), numpy's ufuncs on tensors give tensors, and torch's checks
and warnings on the arrays it shares.  Every scenario runs under both libraries; the expected values are
torch's."""
import operator
import warnings

import numpy as np
import pytest
import torch

import torchlike


def both(fn):
    """``fn(m)`` for torch and torchlike; results compared as nested lists / numbers."""
    return fn(torch), fn(torchlike)


def _plain(x):
    if hasattr(x, "tolist"):
        return x.tolist()
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def same(fn):
    t, tl = both(fn)
    assert _plain(tl) == _plain(t)


# ---- numpy() / np.asarray share memory with the tensor ---------------------------------------------------
def test_tutorial_bridge_tensor_to_numpy():
    def f(m):
        t = m.ones(5)
        n = t.numpy()
        t.add_(1)
        return n.copy(), t
    same(f)


def test_tutorial_bridge_numpy_to_tensor():
    def f(m):
        n = np.ones(5)
        t = m.from_numpy(n)
        np.add(n, 1, out=n)
        return t, str(t.dtype)
    same(f)


def test_writes_through_numpy_reach_the_tensor_and_its_views():
    def f(m):
        t = m.arange(12.0).reshape(3, 4)
        n = t.numpy()
        n[n > 8] = -1
        v = t[1:, ::2]
        n[1, 0] = 100
        return t, v, n.flags.writeable
    same(f)


def test_numpy_of_a_view_is_a_view_of_the_storage():
    def f(m):
        x = m.zeros(3, 4)
        a = x[1:, ::2].numpy()
        a[:] = 7
        b = x.t().numpy()
        b[0, 2] = 5
        return x, a.shape, a.strides, b.strides
    same(f)


def test_detach_and_data_share_with_numpy():
    def f(m):
        p = m.nn.Parameter(m.zeros(2, 2))
        n = p.detach().numpy()
        with m.no_grad():
            p.add_(3)
        d = p.data.numpy()
        d[0, 0] = 9
        return n.copy(), p.detach()
    same(f)


def test_optimizer_steps_reach_an_array_taken_before():
    def f(m):
        m.manual_seed(0)
        lin = m.nn.Linear(3, 2)
        w = lin.weight.detach().numpy()
        opt = m.optim.SGD(lin.parameters(), lr=0.5)
        for _ in range(3):
            opt.zero_grad()
            lin(m.ones(4, 3)).pow(2).sum().backward()
            opt.step()
        return np.allclose(w, lin.weight.detach().numpy()), bool((w != 0).all())
    same(f)


def test_in_place_numpy_ops_on_numpy_results():
    def f(m):
        img = m.linspace(0, 1, 6).reshape(2, 3).numpy()
        img *= 255
        np.clip(img, 0, 200, out=img)
        return img.astype(np.int64)
    same(f)


def test_np_asarray_shares_and_refuses_requires_grad():
    def f(m):
        t = m.tensor([1.0, 2.0])
        a = np.asarray(t)
        a[0] = 9
        try:
            np.asarray(m.ones(2, requires_grad=True))
            err = None
        except RuntimeError as e:
            err = str(e)
        return t, err
    same(f)


def test_as_tensor_and_asarray_share_a_matching_array():
    def f(m):
        a = np.arange(6, dtype=np.int64).reshape(2, 3)
        u = m.as_tensor(a)
        w = m.asarray(a)
        c = m.as_tensor(a, dtype=m.float32)  # another dtype: a copy
        a[0, 0] = 100
        return u, w, c
    same(f)


def test_tensor_writes_after_from_numpy_reach_the_array():
    def f(m):
        a = np.zeros((2, 3), dtype=np.float32)
        t = m.from_numpy(a)
        t[0] = 4
        t.mul_(2)
        t[:, 1].fill_(-1)
        return a.copy()
    same(f)


def test_large_arrays_are_copies_here():
    # documented difference (docs/differences.md): past SHARE_LIMIT the bridge copies instead of sharing
    n = torchlike._numpy_bridge.SHARE_LIMIT // 4 + 1
    a = np.zeros(n, dtype=np.float32)
    t = torchlike.from_numpy(a)
    a[0] = 1
    assert t[0].item() == 0.0
    b = torchlike.zeros(n).numpy()
    b[0] = 1  # writable, as torch's
    assert b.flags.writeable


# ---- torch's checks on the arrays it shares -----------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda m, a: m.from_numpy(a), lambda m, a: m.as_tensor(a)])
def test_negative_strides_are_refused(make):
    msgs = []
    for m in (torch, torchlike):
        with pytest.raises(ValueError) as e:
            make(m, np.arange(5)[::-1])
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_read_only_array_warns_once():
    got = []
    for m in (torch, torchlike):
        ro = np.ones(3)
        ro.flags.writeable = False
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m.from_numpy(ro)
            m.from_numpy(ro)
        got.append([str(x.message).split(" (Triggered")[0] for x in w if "writable" in str(x.message)])
    # torch warns once per process: a test run before this one may have used it up; torchlike's the same way
    assert got[1] == got[0] or (len(got[1]) <= 1 and len(got[0]) == 0)


# ---- numpy's operators and ufuncs on tensors --------------------------------------------------------------------
OPS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_", "or_", "xor", "lshift",
       "rshift", "eq", "ne", "lt", "le", "gt", "ge"]


def _outcome(f):
    try:
        r = f()
    except Exception as e:  # (the outcome compared is the exception's type)
        return ("raises", type(e).__name__)
    return (type(r).__name__ if not hasattr(r, "tolist") or type(r).__module__ == "numpy" else "Tensor",
            str(getattr(r, "dtype", None)).replace("torch.", ""), _plain(r))


@pytest.mark.parametrize("dtypes", [("float32", np.float64), ("int64", np.int64), ("bool", np.bool_),
                                    ("float32", np.float32)], ids=lambda d: f"{d[0]}-{d[1].__name__}")
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("side", ["tensor-array", "array-tensor"])
def test_operator_with_an_array_matches_torch(dtypes, op, side):
    def f(m):
        t = m.tensor([1, 2, 3], dtype=getattr(m, dtypes[0]))
        n = np.array([1, 2, 2], dtype=dtypes[1])
        fn = getattr(operator, op)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _outcome(lambda: fn(t, n) if side == "tensor-array" else fn(n, t))
    t, tl = both(f)
    assert tl == t


@pytest.mark.parametrize("ufunc", ["exp", "negative", "isnan", "sign", "floor", "sqrt", "greater"])
def test_ufunc_of_a_tensor_is_a_tensor(ufunc):
    def f(m):
        t = m.tensor([1.0, 4.0, 9.0])
        u = getattr(np, ufunc)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _outcome(lambda: u(t, 2.0) if ufunc == "greater" else u(t))
    t, tl = both(f)
    assert tl == t


@pytest.mark.parametrize("call", ["exp-0d", "exp", "add-array", "greater", "array-mul"])
def test_ufunc_of_a_tensor_warns_as_torch_does(call):
    """torch's ``Tensor.__array_wrap__`` takes the array alone, so numpy 2 gives a DeprecationWarning ("must
    accept context and return_scalar") when a ufunc wraps its result: the same warnings, the same result."""
    def f(m):
        t = m.tensor(2.0) if call == "exp-0d" else m.tensor([1.0, 4.0, 9.0])
        n = np.array([1.0, 2.0, 3.0])
        fn = {"exp-0d": np.exp, "exp": np.exp, "add-array": lambda t: np.add(t, n),
              "greater": lambda t: np.greater(t, 2.0), "array-mul": lambda t: n * t}[call]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = _outcome(lambda: fn(t))
        return r, [(x.category.__name__, str(x.message)) for x in w]
    t, tl = both(f)
    assert tl == t


@pytest.mark.parametrize("call", ["array", "asarray", "array-copy-false", "array-copy-true", "array-dtype",
                                  "asarray-copy-true", "list-of-tensors", "meta", "requires-grad"])
def test_array_of_a_tensor_warns_and_refuses_as_torch_does(call):
    """torch's ``Tensor.__array__`` takes no ``copy`` keyword: numpy 2 warns ("__array__ implementation doesn't
    accept a copy keyword") where it passes one, ``np.array(t, copy=False)`` is its ValueError, and a meta
    tensor is refused as ``t.numpy()`` refuses it."""
    def f(m):
        t = m.ones(2, device="meta") if call == "meta" else m.ones(2, requires_grad=call == "requires-grad")
        fn = {"array": np.array, "asarray": np.asarray, "array-copy-false": lambda t: np.array(t, copy=False),
              "array-copy-true": lambda t: np.array(t, copy=True), "array-dtype": lambda t: np.array(t, dtype=np.float64),
              "asarray-copy-true": lambda t: np.asarray(t, copy=True), "list-of-tensors": lambda t: np.array([t, t]),
              "meta": np.array, "requires-grad": np.array}[call]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = _outcome(lambda: fn(t))
        return r, [(x.category.__name__, str(x.message)) for x in w]
    t, tl = both(f)
    assert tl == t


def test_writes_through_views_made_before_numpy_reach_the_array():
    def f(m):
        x = m.arange(6.0)
        v = x[2:]
        n = x.numpy()
        v.mul_(10)  # a view made before numpy(): its write reaches the shared array
        v[0] = -1
        n[5] = 7  # and a numpy write reaches the tensor and the view
        return n.copy(), x, v

    same(f)


def test_compiled_function_writes_reach_a_shared_closure():
    def f(m, compiled):
        x = m.zeros(3)
        n = x.numpy()

        def step():
            x.add_(1)
            return x.sum()
        g = torchlike.compile(step) if compiled else step
        g()
        g()
        return n.copy()

    t = f(torch, False)
    assert _plain(f(torchlike, True)) == _plain(t) and _plain(f(torchlike, False)) == _plain(t)


# ---- arrays given where torch takes numbers or tensors -------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda m: m.tensor([np.ones(2), np.zeros(2)]),
    lambda m: m.tensor([np.ones(2, np.float32), np.zeros(2, np.float32)]),
    lambda m: m.tensor([np.ones(2, np.int32), np.zeros(2, np.int32)]),
    lambda m: m.tensor([np.ones(2, np.int32), np.zeros(2)]),
    lambda m: m.tensor([np.ones(2, np.float16), [1.0, 2.0]]),
    lambda m: m.tensor([[np.float32(1), np.float32(2)]]),
], ids=["f64", "f32", "i32", "i32+f64", "f16+list", "np-scalars"])
def test_tensor_of_a_list_of_arrays_keeps_their_dtype(make):
    def f(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = make(m)
        return str(t.dtype).replace("torch.", ""), t.tolist()
    same(f)


@pytest.mark.parametrize("call", [
    lambda m: m.tensor(np.array([1, "a"], dtype=object)), lambda m: m.tensor(np.array(["a"])),
    lambda m: m.exp(np.ones(2)), lambda m: m.cat([np.ones(2), np.zeros(2)]),
    lambda m: m.nn.functional.relu(np.ones(2)), lambda m: m.nn.functional.linear(np.ones(2), m.ones(2, 2)),
], ids=["object", "str", "exp", "cat", "relu", "linear"])
def test_array_where_a_tensor_is_expected_is_named_as_torch_names_it(call):
    msgs = []
    for m in (torch, torchlike):
        with pytest.raises(TypeError) as e:
            call(m)
        msgs.append(str(e.value))
    assert msgs[1] == msgs[0]


def test_numpy_of_a_reinterpreting_view():
    def f(m):
        g = m.Generator().manual_seed(0)
        x = m.randn(2, 2, 2, generator=g)
        c = m.view_as_complex(x)
        i = m.ones(3).view(m.int32)
        n = i.numpy()
        n[0] = 0  # a same-size reinterpretation shares memory
        return c.numpy().tolist(), str(c.numpy().dtype), n.tolist(), i
    same(f)


def test_resize_of_a_tensor_sharing_an_array():
    def f(m):
        out = []
        z = m.from_numpy(np.zeros(3, np.float32))
        try:
            z.resize_(5)
        except RuntimeError as e:
            out.append(str(e))
        z.resize_(2)
        out.append(list(z.shape))
        return out
    same(f)


def test_resize_after_numpy_cannot_grow_as_in_torch():
    def f(m):
        t = m.zeros(2)
        t.numpy()  # (torch: the storage is numpy's now, not resizable)
        try:
            t.resize_(4)
        except RuntimeError as e:
            return str(e)
        return list(t.shape)
    same(f)


# ---- copy.copy rebuilds on the same storage ----------------------------------------------------------------
def test_copy_copy_shares_values_like_torch():
    import copy

    def f(m):
        a = np.ones(3, dtype=np.float32)
        t = m.from_numpy(a)
        c = copy.copy(t)
        c[0] = 5  # reaches t and the array
        i = m.arange(3)
        ci = copy.copy(i)
        ci += 1
        p = m.nn.Parameter(m.ones(2))
        q = copy.copy(p)
        q.data[1] = 7
        x = m.ones(4, requires_grad=True)
        y = (x * 2)[1:3]
        cy = copy.copy(y)  # a non-leaf: the copy is a leaf that requires grad
        return [a.tolist(), t, c, i, ci, type(q).__name__, q.requires_grad, p.detach(),
                cy.requires_grad, cy.is_leaf, cy.grad_fn is None, c.requires_grad]
    same(f)


@pytest.mark.parametrize("case", ["view", "transpose", "expand", "view-with-base", "base-then-view", "narrow-2d",
                                  "view-of-no-grad-parameter", "requires-grad-view"])
def test_deepcopy_of_a_view_keeps_strides_and_sharing_like_torch(case):
    """torch's deepcopy copies the storage (memoised) and sets the copy on it with the view's size, strides and
    offset: ``deepcopy(t.T)`` is not contiguous, a view and its base copied together still share values."""
    import copy

    def f(m):
        t = m.arange(12.).reshape(3, 4)
        if case == "view-of-no-grad-parameter":
            p = m.nn.Parameter(m.ones(2, 3))
            with m.no_grad():
                v = p[:, 1]
                w = p[1]
            c = copy.deepcopy([p, v, w])
            with m.no_grad():
                c[1][0] = 5.  # (torch: the parameter's copy is a clone, the views' copies share a storage)
            return [c[1].stride(), c[1].storage_offset(), type(c[0]).__name__, c[0].detach(), c[1].requires_grad,
                    c[2].detach(), c[1].is_leaf]
        if case == "requires-grad-view":
            v = t[1].requires_grad_()
            c = copy.deepcopy(v)
            return [c.stride(), c.storage_offset(), c.requires_grad, c.is_leaf, c]
        v = {"view": lambda: t[:, 1], "transpose": lambda: t.T, "expand": lambda: t[0].expand(2, 4),
             "view-with-base": lambda: t[1:], "base-then-view": lambda: t[1:], "narrow-2d": lambda: t[1:, 2:]}[case]()
        if case in ("view-with-base", "base-then-view"):
            pair = [v, t] if case == "view-with-base" else [t, v]
            c = copy.deepcopy(pair)
            cv, ct = (c[0], c[1]) if case == "view-with-base" else (c[1], c[0])
            cv[0, 0] = -1.  # reaches the copied base, not the original
            return [ct, cv.stride(), cv.storage_offset(), t]
        c = copy.deepcopy(v)
        return [c, c.stride(), c.storage_offset(), c.is_contiguous(), c.untyped_storage().nbytes()]
    same(f)


def test_copy_copy_keeps_subclass_and_attributes():
    import copy

    def f(m):
        class T(m.Tensor):
            pass
        s = m.ones(2).as_subclass(T)
        s.tag = "k"
        cs = copy.copy(s)
        cs[0] = 3
        return [type(cs).__name__, cs.tag, s.as_subclass(m.Tensor)]
    same(f)


# ---- the strides of a tensor made from an array ------------------------------------------------------------
_BASE = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
ARRAYS = {  # (every layout the constructors see: dense in another order, non-dense, broadcast, size-1 dims)
    "T": lambda: _BASE.T, "transpose": lambda: _BASE.transpose(1, 0, 2), "fortran": lambda: np.asfortranarray(_BASE),
    "slice": lambda: _BASE[:, :, ::2], "split_T": lambda: np.split(np.arange(18.).reshape(3, 6), 3, axis=-1)[1].T,
    "broadcast": lambda: np.broadcast_to(np.arange(4.0), (3, 4)), "int64_T": lambda: np.arange(6).reshape(2, 3).T,
    "bool_T": lambda: (_BASE > 3).T, "float16_T": lambda: _BASE.astype(np.float16).T,
    "size1": lambda: np.zeros((3, 1, 2), np.float32).transpose(2, 1, 0), "empty_T": lambda: np.zeros((0, 3)).T,
    "row_major": lambda: _BASE.copy(), "one_d_step": lambda: np.arange(8.0)[::2], "empty": lambda: np.zeros((0, 3)),
    "empty_3d": lambda: np.zeros((2, 0, 3), np.float32).transpose(2, 1, 0),
    # numpy calls these C-contiguous, but a size-1 dim's stride is its own (torch keeps it: (12, 0, 4, 1))
    "new_axis": lambda: _BASE[:, None], "row_of_column": lambda: np.arange(6.).reshape(6, 1).T,
    "broadcast_column": lambda: np.broadcast_to(np.arange(3.0)[:, None], (3, 1)),
}
COPIES = {  # torch's copying constructors: the array's strides where dense, else dense in their order
    "tensor": lambda m, a: m.tensor(a), "tensor_dtype": lambda m, a: m.tensor(a, dtype=m.float64),
    "Parameter": lambda m, a: m.nn.Parameter(m.tensor(a)) if a.dtype.kind == "f" else m.tensor(a),
    "tensor_requires_grad": lambda m, a: m.tensor(a, dtype=m.float32, requires_grad=True),
    "legacy_Tensor_cast": lambda m, a: m.Tensor(a.astype(np.float64)),
}


def _layout(t):
    d = t.detach()
    return (tuple(t.shape), t.stride(), t.is_contiguous(), str(t.dtype).replace("torch.", ""), t.tolist(),
            d.numpy().strides, d[-1].numpy().strides if t.ndim > 1 and len(t) else None)


@pytest.mark.parametrize("make", COPIES.values(), ids=COPIES.keys())
@pytest.mark.parametrize("array", ARRAYS.values(), ids=ARRAYS.keys())
def test_tensor_of_an_array_keeps_torch_strides(array, make):
    # load_weights_into_gpt's torch.nn.Parameter(torch.tensor(q_w.T)) is a column-major weight in torch
    got = [_layout(make(m, array())) for m in (torch, torchlike)]
    assert got[1] == got[0]


SHARING = {"from_numpy": lambda m, a: m.from_numpy(a), "as_tensor": lambda m, a: m.as_tensor(a),
           "asarray": lambda m, a: m.asarray(a), "legacy_Tensor": lambda m, a: m.Tensor(a)}


@pytest.mark.parametrize("make", SHARING.values(), ids=SHARING.keys())
@pytest.mark.parametrize("array", ["T", "transpose", "fortran", "int64_T", "bool_T", "float16_T", "size1", "empty_T",
                                   "row_major", "new_axis", "row_of_column"])
def test_tensor_sharing_a_dense_array_keeps_its_strides(array, make):
    """A dense array in another order (non-dense ones: docs/differences.md) keeps its strides, and writes
    through the tensor, its views and the array still cross."""
    def run(m):
        a = ARRAYS[array]().copy(order="K")  # (a writable array of the same layout)
        t = make(m, a)
        a = a if t.dtype == m.from_numpy(a).dtype else None
        out = [_layout(t), t[0].stride(), t.numpy().strides, t.clone().stride(), (t + t).stride()]
        if t.dtype != m.bool and a is not None and a.size:
            t[0] += 1
            a[(-1,) * a.ndim] = 7
            t[-1].numpy()[(0,) * (a.ndim - 1)] = 5  # (a view's array shares the storage too)
            out += [a.tolist(), t.tolist(), t[-1].tolist()]
        return out
    t, tl = both(run)
    assert tl == t


def test_legacy_constructor_shares_a_float_array_and_refuses_scalars():
    def run(m):
        a = np.zeros(3, dtype=np.float32)
        shared = m.Tensor(a)
        d = np.zeros(3)
        copied = m.Tensor(d)
        a[0], d[0] = 5, 5
        out = [shared.tolist(), copied.tolist(), str(copied.dtype)]
        for x in (3.0, np.float32(3.0), True, None, {"a": 1}, "ab"):
            with pytest.raises(TypeError) as e:
                m.Tensor(x)
            out.append(str(e.value))
        with pytest.raises(TypeError) as e:
            m.from_numpy(np.float32(1))
        return out + [str(e.value), m.Tensor(3).shape, m.Tensor(np.array(2.0)).tolist()]
    t, tl = both(run)
    assert tl == t


def test_tensor_of_an_array_with_negative_strides_is_refused():
    msgs = []
    for m in (torch, torchlike):
        for make in (lambda a: m.tensor(a), lambda a: m.Tensor(a), lambda a: m.tensor(a, dtype=m.float64)):
            with pytest.raises(ValueError) as e:
                make(np.arange(6.).reshape(2, 3)[:, ::-1])
            msgs.append(str(e.value))
    assert msgs[:3] == msgs[3:]


@pytest.mark.parametrize("make", [lambda m: m.arange(24.).reshape(1, 2, 3, 4).contiguous(memory_format=m.channels_last),
                                  lambda m: m.arange(6.).reshape(2, 3).t().clone(),
                                  lambda m: m.tensor(np.arange(6.).reshape(2, 3).T)],
                         ids=["channels_last", "transposed_clone", "tensor_of_transposed"])
def test_numpy_of_a_tensor_with_torch_strides_shares_in_its_order(make):
    def run(m):
        t = make(m)
        n = t.numpy()
        out = [n.strides, t[0].numpy().strides]
        n[(0,) * n.ndim] = -1
        t[0].numpy()[(-1,) * (n.ndim - 1)] = -2
        t.add_(1)
        return out + [n.tolist(), t.tolist()]
    t, tl = both(run)
    assert tl == t
