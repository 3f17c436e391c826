"""``torch.cond``/``torch.while_loop`` (eagerly and under ``torchlike.compile``, where a traced predicate
becomes ``jax.lax.cond``/``jax.lax.while_loop``), the TypedStorage classes, the per-device autocast functions and
``torch.nn.attention.bias``, each compared with torch on the same inputs."""
import warnings

import numpy as np
import pytest

import torchlike
import torchlike.nn.attention.bias  # noqa: F401
from conftest import torch

import torch.nn.attention.bias  # noqa: E402,F401  (the oracle's, loaded on import as in torch)


def _both(fn):
    return fn(torch), fn(torchlike)


def _np(out):
    return [np.asarray(o.detach().numpy()) for o in (out if isinstance(out, (tuple, list)) else (out,))]


def test_cond_eager_values_gradients_and_structure():
    def f(T):
        T.manual_seed(0)
        lin = T.nn.Linear(3, 3)
        x = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
        res = []
        for p in (x.sum() > 0, x.sum() < 0, True, T.tensor([False])):
            out = T.cond(p, lambda x: (lin(x).sin(),), lambda x: (x.cos() * 2,), (x,))
            out[0].sum().backward()
            res.append((type(out).__name__, out[0].tolist(), x.grad.tolist()))
            x.grad = None
        single = T.cond(T.tensor(True), lambda x: x + 1, lambda x: x - 1, [x])
        return res, type(single).__name__, single.tolist(), lin.weight.grad.tolist()
    a, b = _both(f)
    assert [r[0] for r in a[0]] == [r[0] for r in b[0]] and a[1:3] == b[1:3]
    for ra, rb in zip(a[0], b[0]):
        np.testing.assert_allclose(rb[1], ra[1], rtol=1e-5)
        np.testing.assert_allclose(rb[2], ra[2], rtol=1e-5)
    np.testing.assert_allclose(b[3], a[3], rtol=1e-5)


def _graph(t):
    """``t``'s node name and its edges' node names (None for no edge), as a graph-walking tool reads them."""
    return (type(t.grad_fn).__name__, [None if n is None else type(n).__name__ for n, _ in t.grad_fn.next_functions])


def test_cond_eager_is_one_cond_node_like_torch():
    """With a Tensor predicate torch records one ``CondAutogradOpBackward`` node whose edges are the predicate's
    (none), the operands' and those of the leaf tensors the branch closes over; it is once differentiable."""
    def f(T):
        T.manual_seed(0)
        lin = T.nn.Linear(2, 2)
        x = T.tensor([0.5, -1.0], requires_grad=True)
        res = []
        y = T.cond(x.sum() > 0, lambda a: a * a, lambda a: a.exp() * 3, (x,))
        g, = T.autograd.grad(y.sum(), x, create_graph=True)
        res.append((_graph(y), y.tolist(), g.tolist(), g.requires_grad))
        y = T.cond(x.sum() < 0, lambda a: lin(a), lambda a: lin(a * 2), (x,))
        y.sum().backward()
        res.append((_graph(y), x.grad.tolist(), lin.weight.grad.tolist()))
        ys = T.cond(T.tensor(True), lambda a, b: (a + b, a * b), lambda a, b: (a - b, a / b), (x, T.ones(2)))
        res.append([_graph(t) for t in ys])
        lin.zero_grad()
        y = T.cond(T.tensor(True), lambda a: lin(a).relu(), lambda a: a * 1, (T.ones(2),))
        y.sum().backward()
        res.append((_graph(y), lin.weight.grad.tolist()))
        with T.no_grad():
            res.append(T.cond(T.tensor(False), lambda a: a + 1, lambda a: a - 1, (x,)).grad_fn)
        return res
    a, b = _both(f)
    assert a[0][0] == b[0][0] == ("CondAutogradOpBackward", [None, "AccumulateGrad"])
    assert a[0][3] is b[0][3] is False
    np.testing.assert_allclose(b[0][1] + b[0][2], a[0][1] + a[0][2], rtol=1e-6)
    assert b[1][0] == a[1][0] and b[2] == a[2] and b[3][0] == a[3][0] and b[4] is a[4] is None
    np.testing.assert_allclose(b[1][1] + sum(b[1][2], []), a[1][1] + sum(a[1][2], []), rtol=1e-6)
    np.testing.assert_allclose(b[3][1], a[3][1], rtol=1e-6)


def test_cond_rejects_multi_element_pred_like_torch():
    for T in (torch, torchlike):
        with pytest.raises(RuntimeError, match="Expected pred to be bool or single-element tensor"):
            T.cond(T.tensor([True, False]), lambda x: x, lambda x: x, (T.ones(2),))


def test_cond_branch_returning_an_operand_raises_like_torch():
    for T in (torch, torchlike):
        x = T.arange(4.0)
        with pytest.raises(T._dynamo.exc.UncapturedHigherOrderOpError, match="Encountered aliasing"):
            T.cond(T.tensor(3) > 2, lambda a: a, lambda a: a * 2, (x,))
        with pytest.raises(T._dynamo.exc.UncapturedHigherOrderOpError, match="Encountered aliasing"):
            T.cond(T.tensor(3) > 2, lambda a: (a[1:],), lambda a: (a[1:] * 2,), (x,))
        assert T.cond(True, lambda a: a, lambda a: a * 2, (x,)) is x  # a Python bool: the branch, called


def test_while_loop_eager_matches_torch():
    def f(T):
        i, s = T.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s * 2), (T.tensor(0), T.tensor(1.0)))
        j = T.while_loop(lambda i: i < 3, lambda i: i + 1, (T.tensor(0),))
        k = T.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2), (0, T.ones(2)))
        return i.item(), s.item(), j.item(), k[0], k[1].tolist()
    a, b = _both(f)
    assert a == b


def test_cond_and_while_loop_compiled_with_traced_predicate():
    """One compiled program serves both branches (the predicate is an input, not a constant) and trains
    through ``lax.cond``; a branch closing over parameters still gives them torch's gradients."""
    def run(T, compile_fn):
        T.manual_seed(0)
        lin = T.nn.Linear(3, 3)

        def step(x, y):
            a = T.cond(x.sum() > y, lambda x: x * 2, lambda x: x - 1, (x,))
            i, s = T.while_loop(lambda i, s: s.sum() < y * 10, lambda i, s: (i + 1, s * 2), (T.tensor(0), a.detach()))
            b = T.cond(y > 0, lambda x: (lin(x).sin(),), lambda x: (x.cos() * 2,), (x,))[0]
            loss = (a * 3).sum() + b.sum()
            loss.backward()
            return a.detach(), i, s.detach(), loss.detach()
        step = compile_fn(step)
        out = []
        for yv in (0.0, 100.0, -1.0):
            x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
            lin.zero_grad()
            a, i, s, loss = step(x, T.tensor(yv))
            out.append((a.tolist(), int(i), s.tolist(), float(loss), x.grad.tolist(),
                        None if lin.weight.grad is None else lin.weight.grad.tolist()))
        return out
    want = run(torch, lambda f: f)
    got = run(torchlike, torchlike.compile)
    for w, g in zip(want, got):
        assert w[0] == g[0] and w[1] == g[1]
        np.testing.assert_allclose(g[2], w[2], rtol=1e-6)
        np.testing.assert_allclose(g[3], w[3], rtol=1e-5)
        np.testing.assert_allclose(g[4], w[4], rtol=1e-5)
        if w[5] is None:
            assert g[5] is None or not np.any(g[5])
        else:
            np.testing.assert_allclose(g[5], w[5], rtol=1e-5)


def test_cond_lowers_to_lax_cond_under_compile():
    """Operands alone (no closed-over parameter): the compiled program holds a ``cond``, both predicate
    values run through it, and the gradient w.r.t. the operand is torch's."""
    import jax

    seen = []
    orig = jax.lax.cond

    def spy(*a, **k):
        seen.append(True)
        return orig(*a, **k)
    jax.lax.cond = spy
    try:
        @torchlike.compile
        def f(x, y):
            out = torchlike.cond(y > 0, lambda x: x.sin() * 3, lambda x: x.cos(), (x,))
            out.sum().backward()
            return out.detach()
        res = []
        for yv in (1.0, -1.0):
            x = torchlike.tensor([1.0, 2.0, 3.0], requires_grad=True)
            res.append((f(x, torchlike.tensor(yv)).tolist(), x.grad.tolist()))
    finally:
        jax.lax.cond = orig
    assert seen
    for (o, g), yv in zip(res, (1.0, -1.0)):
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = torch.cond(torch.tensor(yv) > 0, lambda x: x.sin() * 3, lambda x: x.cos(), (x,))
        out.sum().backward()
        np.testing.assert_allclose(o, out.tolist(), rtol=1e-6)
        np.testing.assert_allclose(g, x.grad.tolist(), rtol=1e-6)


def test_typed_storages_like_torch():
    def f(T):
        T.storage._warn_typed_storage_removal.__dict__["has_warned"] = False  # torch warns once per process
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            s = T.FloatStorage([1, 2, 3])
            t = T.arange(6.0).view(2, 3)
            st = t[1].storage()
            d = T.zeros(2, dtype=T.float64).storage()
            i32 = T.TypedStorage([1, 2], dtype=T.int32)
        return (s.size(), len(s), s.tolist(), s[1], str(s.dtype), s.element_size(), s.nbytes(), repr(s),
                st.size(), st.tolist(), st.data_ptr() == t.data_ptr(), isinstance(st, T.FloatStorage),
                isinstance(st, T.DoubleStorage), isinstance(d, T.DoubleStorage), isinstance(st, T.TypedStorage),
                T.is_storage(st), T.FloatStorage(4).size(), repr(i32), st.type(), st.pickle_storage_type(),
                T.Storage.__name__, type(st).__name__, t.storage_type().__name__, type(st.untyped()).__name__,
                [str(x.message)[:40] for x in w])
    a, b = _both(f)
    assert a[-1] == ["TypedStorage is deprecated. It will be r"]  # once, though five storages were made
    assert a == b


def test_storage_str_like_torch():
    """``print(t.untyped_storage())``: a byte a line and ``[... of size n]`` as torch prints it (typed storages an
    element a line; ``...`` for a meta storage; a lone space for an empty one)."""
    def f(T):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [(str(t.untyped_storage()), repr(t.storage())) for t in (
                T.ones(2), T.empty(0), T.arange(3), T.tensor([True]), T.ones(1, dtype=T.float16),
                T.empty(2, device="meta"))]
    a, b = _both(f)
    assert a == b


def test_legacy_autocast_functions_like_torch():
    def f(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            before = (T.is_autocast_cpu_enabled(), T.get_autocast_cpu_dtype(), T.get_autocast_gpu_dtype(),
                      T.is_autocast_xla_enabled(), T.get_autocast_xla_dtype(), T.is_autocast_ipu_enabled(),
                      T.get_autocast_ipu_dtype())
            with T.autocast("cpu", dtype=T.bfloat16):
                inside = (T.is_autocast_cpu_enabled(), T.get_autocast_cpu_dtype(), T.autocast_increment_nesting(),
                          T.autocast_decrement_nesting())
            T.set_autocast_cpu_dtype(T.float16)
            T.set_autocast_cpu_enabled(True)
            switched = (T.is_autocast_enabled("cpu"), T.get_autocast_dtype("cpu"))
            T.set_autocast_cpu_enabled(False)
            T.set_autocast_cpu_dtype(T.bfloat16)
        msgs = sorted({str(x.message).split(" (Triggered")[0] for x in w})
        return [str(v) for v in before + inside + switched], msgs, {x.category.__name__ for x in w}
    a, b = _both(f)
    assert a == b


@pytest.mark.parametrize("factory,size", [("causal_lower_right", (3, 5)), ("causal_upper_left", (3, 5)),
                                          ("causal_lower_right", (4, 4))])
def test_causal_bias_in_sdpa_like_torch(factory, size):
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 2, n, 4, generator=g) for n in (size[0], size[1], size[1]))
    outs = []
    for T in (torch, torchlike):
        bias = getattr(T.nn.attention.bias, factory)(*size)
        args = [T.tensor(t.numpy()) for t in (q, k, v)]
        o = T.nn.functional.scaled_dot_product_attention(*args, attn_mask=bias)
        outs.append((o.numpy(), bias.variant.name, bias.seq_len_q, bias.seq_len_kv, repr(bias),
                     isinstance(bias, T.Tensor), type(bias).__name__))
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-5, atol=1e-6)
    assert outs[0][1:] == outs[1][1:]


def _tolists(tree):
    if isinstance(tree, dict):
        return {k: _tolists(v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(_tolists(v) for v in tree)
    return tree.tolist()


def test_scan_map_and_associative_scan_like_torch():
    """torch._higher_order_ops' map/scan/associative_scan: pytrees in and out, dim/reverse, gradients."""
    def f(T):
        H = T._higher_order_ops
        x = T.arange(1., 7.).view(2, 3)
        res = [H.scan(lambda c, x: (c + x, c * x), T.zeros(2), x, dim=1, reverse=rev) for rev in (False, True)]
        res.append(H.scan(lambda c, x: ({"s": c["s"] + x[0]}, [x[1] * 2]), {"s": T.zeros(())},
                          (T.arange(3.), T.ones(3))))
        res.append(H.associative_scan(lambda a, b: a * b, x, 1, reverse=True, combine_mode="generic"))
        res.append(H.associative_scan(lambda a, b: (a[0] + b[0], a[1] * b[1]), (T.arange(4.), T.arange(1., 5.)), 0,
                                      combine_mode="generic"))
        res.append(H.map(lambda a, b: (a * b, {"k": a * 2}), T.ones(3, 2), T.tensor(2.)))
        w = T.ones(3, requires_grad=True)
        c, ys = H.scan(lambda c, x: (c * x, c + x), T.ones(()), w * 2)
        (c + ys.sum()).backward()
        res.append(w.grad)
        return _tolists(res)
    a, b = _both(f)
    assert a == b


def test_associative_scan_pointwise_needs_a_gpu_like_torch():
    errors = []
    for T in (torch, torchlike):
        with pytest.raises(ValueError) as e:
            T._higher_order_ops.associative_scan(lambda a, b: a + b, T.ones(3), 0)
        errors.append(str(e.value))
    assert errors[0] == errors[1]
