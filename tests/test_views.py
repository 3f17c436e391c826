"""Views alias their root: in-place writes through any alias are visible through all of them; in-place view
ops (``t_``, ``as_strided_``, ``transpose_`` of a view), ``view_as_complex``/``view_as_real``,
``as_strided_scatter``, ``fill_diagonal_``, ``.H``/``.mH``, slices of a leaf view requiring grad."""
import inspect
import warnings

import numpy as np
import pytest
import torch

import torchlike
from conftest import assert_same, raises_like_torch, same_as_torch, to_tl

RNG = np.random.default_rng(0)

def both(shape=(4, 5)):
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    return torch.tensor(a), torchlike.tensor(a)
_R0 = np.random.default_rng(0)
A = _R0.standard_normal((3, 5)).astype(np.float32)


def test_chain_of_views_write_visible_in_base_and_siblings():
    for_torch, ours = both()
    results = []
    for x in (for_torch, ours):
        v1 = x.t()                    # (5, 4)
        v2 = v1.narrow(0, 1, 3)       # rows 1..3 of the transpose
        v3 = v2.select(1, 2)          # column 2
        sib = x.narrow(1, 1, 3)
        v3.mul_(-1)
        results.append((x.clone(), sib.clone(), v1.clone()))
    for o, t in zip(results[1], results[0]):
        assert_same(o, t)


def test_inplace_on_base_visible_through_views():
    t, o = both()
    vt, vo = t.t().diagonal(), o.t().diagonal()
    t.add_(100)
    o.add_(100)
    assert_same(vo, vt)


def test_strides_offsets_contiguity_match_torch():
    t, o = both((3, 4, 5))
    cases = [lambda x: x.t() if x.ndim == 2 else x.transpose(0, 2), lambda x: x.narrow(2, 1, 3),
             lambda x: x.select(1, 2), lambda x: x.permute(2, 0, 1), lambda x: x.unsqueeze(1),
             lambda x: x.diagonal(0, 1, 2), lambda x: x.unfold(2, 2, 1), lambda x: x.expand(2, 3, 4, 5),
             lambda x: x.view(12, 5), lambda x: x.transpose(0, 1).narrow(0, 1, 2)]
    for f in cases:
        a, b = f(t), f(o)
        assert b.stride() == a.stride()
        assert b.storage_offset() == a.storage_offset()
        assert b.is_contiguous() == a.is_contiguous()
        assert b._base is o


def test_view_of_noncontiguous_raises_and_reshape_copies():
    t, o = both()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.t().view(20)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        o.t().view(20)
    r = o.t().reshape(20)
    r.fill_(0)
    assert o.sum().item() != 0  # reshape of a non-viewable tensor is a copy


def test_expanded_view_write_raises():
    for lib in (torch, torchlike):
        e = lib.ones(3).expand(2, 3)
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            e.add_(1)


def test_as_strided_and_split_views():
    t, o = both((4, 4))
    assert_same(o.as_strided((2, 2), (1, 4), 1), t.as_strided((2, 2), (1, 4), 1))
    for a, b in zip(t.split(3, 1), o.split(3, 1)):
        assert_same(b, a)
    o.chunk(2, 0)[1].zero_()
    t.chunk(2, 0)[1].zero_()
    assert_same(o, t)
    o.unbind(1)[0].fill_(7)
    t.unbind(1)[0].fill_(7)
    assert_same(o, t)


def test_real_imag_views_write_back():
    data = np.array([1 + 2j, 3 - 1j], dtype=np.complex64)
    t, o = torch.tensor(data), torchlike.tensor(data)
    t.real.mul_(2)
    o.real.mul_(2)
    t.imag.add_(1)
    o.imag.add_(1)
    assert_same(o, t)


def test_detach_shares_storage_and_version():
    o = torchlike.ones(3)
    d = o.detach()
    d.add_(1)
    assert o.tolist() == [2.0, 2.0, 2.0]
    assert o._version == d._version == 1


def test_contiguous_and_clone():
    t, o = both()
    a, b = t.t().contiguous(), o.t().contiguous()
    assert b.is_contiguous() and b._base is None
    assert_same(b, a)
    c = o.clone()
    c.fill_(0)
    assert o.sum().item() == t.sum().item()


# --- slicing a non-contiguous leaf view that requires grad -----------------------------------------------
def test_slice_of_leaf_view_requiring_grad_is_differentiable():
    base = torch.zeros(10, 5, dtype=torch.float64)
    x = base[::2].requires_grad_()
    y = x[0:3]
    (y * torch.arange(15.0, dtype=torch.float64).reshape(3, 5)).sum().backward()
    lx = torchlike.zeros(10, 5, dtype=torchlike.float64)[::2].requires_grad_()
    ly = lx[0:3]
    assert ly.requires_grad and type(ly.grad_fn).__name__ == type(y.grad_fn).__name__ == "SliceBackward0"
    (ly * torchlike.arange(15.0, dtype=torchlike.float64).reshape(3, 5)).sum().backward()
    assert lx.grad.tolist() == x.grad.tolist()


# --- unravel_index, view_as_complex, as_strided_scatter, in-place view ops ------------------------
def test_unravel_view_as_complex_scatter_misc():
    assert_same(torchlike.unravel_index(torchlike.tensor(np.asarray([5, 7, 0])), (2, 4)),
                torch.unravel_index(torch.tensor(np.asarray([5, 7, 0])), (2, 4)), 1e-6, 1e-6)
    assert_same(torchlike.unravel_index(torchlike.tensor(5), (2, 4)),
                torch.unravel_index(torch.tensor(5), (2, 4)), 1e-6, 1e-6)
    with pytest.raises(TypeError):
        torchlike.unravel_index(torchlike.tensor(1.), (2, 4))
    y = RNG.standard_normal((3, 2))
    assert_same(torchlike.view_as_complex(torchlike.tensor(y)), torch.view_as_complex(torch.tensor(y)), 1e-6, 1e-6)
    assert_same(torchlike.view_as_real(torchlike.view_as_complex(torchlike.tensor(y))),
                torch.view_as_real(torch.view_as_complex(torch.tensor(y))), 1e-6, 1e-6)
    x, s = np.arange(9.).reshape(3, 3), np.ones((2, 2))
    rt, st = torch.tensor(x, requires_grad=True), torch.tensor(s, requires_grad=True)
    rl, sl = torchlike.tensor(x, requires_grad=True), torchlike.tensor(s, requires_grad=True)
    r, l = torch.as_strided_scatter(rt, st, (2, 2), (1, 2), 1), torchlike.as_strided_scatter(rl, sl, (2, 2), (1, 2), 1)
    assert_same(l, r, 1e-6, 1e-6)
    r.backward(torch.tensor(x)), l.backward(torchlike.tensor(x))
    assert_same(rl.grad, rt.grad, 1e-6, 1e-6), assert_same(sl.grad, st.grad, 1e-6, 1e-6)
    assert_same(torchlike.tensor(np.asarray([2., 4.])).__rdiv__(3),
                torch.tensor(np.asarray([2., 4.])).__rdiv__(3), 1e-6, 1e-6)
    assert torchlike.tensor(np.asarray([1.])).chalf().dtype.is_complex
    a = torch.tensor(np.asarray([1., 2.]), dtype=torch.float64)
    b = torchlike.tensor(np.asarray([1., 2.]), dtype=torchlike.float64)
    assert_same(b.float_power_(2.5), a.float_power_(2.5), 1e-6, 1e-6)
    with pytest.raises(RuntimeError, match="float_power_"):
        torchlike.tensor([1., 2.]).float_power_(2)


def test_inplace_view_ops():
    r, l = torch.arange(6.).reshape(2, 3), torchlike.arange(6.).reshape(2, 3)
    r.t_(), l.t_()
    assert_same(l, r, 1e-6, 1e-6)
    assert r.stride() == l.stride() and r.is_contiguous() == l.is_contiguous() and r._version == l._version
    r.as_strided_(((2, 2)), (1, 2), 1), l.as_strided_((2, 2), (1, 2), 1)
    assert_same(l, r, 1e-6, 1e-6)
    r, l = torch.zeros(3, 1), torchlike.zeros(3, 1)
    r.squeeze_(1).add_(1), l.squeeze_(1).add_(1)
    assert_same(l, r, 1e-6, 1e-6)
    r.unsqueeze_(0), l.unsqueeze_(0)
    assert_same(l, r, 1e-6, 1e-6)
    # a view's in-place transpose still writes through to its base
    outs = []
    for m in (torch, torchlike):
        c = m.arange(12.).reshape(3, 4)
        w = c[:, 1:3]
        w.transpose_(0, 1)
        w.mul_(10)
        outs.append((c, w))
    assert_same(outs[1][0], outs[0][0], 1e-6, 1e-6), assert_same(outs[1][1], outs[0][1], 1e-6, 1e-6)
    # autograd through an in-place transpose of a non-leaf
    grads = []
    for m in (torch, torchlike):
        a = m.arange(6.).reshape(2, 3).requires_grad_()
        b = a * 2
        b.transpose_(0, 1)
        (b * m.arange(6.).reshape(3, 2)).sum().backward()
        grads.append(a.grad)
    assert_same(grads[1], grads[0], 1e-6, 1e-6)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        torchlike.ones(2, 3, requires_grad=True).t_()


# --- fill_diagonal_, .H/.mH, ravel of a transpose -------------------------------------------------
def test_fill_diagonal_and_hermitian_views():
    for shape, wrap in (((3, 3), False), ((7, 3), True), ((7, 3), False), ((2, 2, 2), False)):
        t, o = torch.zeros(shape), torchlike.zeros(shape)
        t.fill_diagonal_(5, wrap=wrap)
        o.fill_diagonal_(5, wrap=wrap)
        assert_same(o, t)
    c = torch.tensor(A[:2, :3]) * (1 + 1j)
    assert_same(to_tl(c).H, c.H)
    assert_same(to_tl(c).mH, c.mH)
    assert_same(torchlike.ravel(torchlike.tensor(A).t()), torch.ravel(torch.tensor(A).t()))


@pytest.mark.parametrize("expr", [
    "x.flip(0, 1)", "x.flip(2)", "x.flip(dims=(0, 2))", "y.squeeze(0, 2)", "y.squeeze(1)", "y.squeeze(dim=(0,))",
    "y.clone().squeeze_(0, 2)", "x.count_nonzero(0, 1)", "x.count_nonzero(2)", "x.vsplit(1, 2)", "x.vsplit(2)",
    "x.hsplit(1, 2)", "x.dsplit(1, 3)", "x.dsplit([1])"])
def test_methods_take_int_lists_spread_out_like_torch(expr):
    """torch's method forms take an int list spread out (``x.flip(0, 1)``) as they do ``view``/``permute``."""
    def run(lib):
        names = {"x": lib.arange(24.).reshape(2, 3, 4) % 5, "y": lib.ones(1, 3, 1, 2)}
        return eval(expr, {}, names)
    same_as_torch(lambda lib: run(lib), grad=False)


def test_tensor_split_takes_torchs_method_keyword():
    # Tensor.split(self, split_size, dim) vs torch.split(tensor, split_size_or_sections, dim): torchsde calls
    # ``flat.split(split_size=numels)``
    same_as_torch(lambda m, x: (x.split(split_size=[2, 4], dim=1), x.split(split_size=3, dim=-1),
                                m.split(x, split_size_or_sections=[1, 1], dim=0)), np.arange(12.0).reshape(2, 6))


def test_split_size_given_as_a_tensor_like_torch():
    # torch's Tensor.split takes int() of a one-element tensor (a size computed with tensor ops); a longer one goes
    # on as the sizes, which split_with_sizes' parser refuses
    same_as_torch(lambda m, x: (x.split(m.tensor(2)), m.split(x, m.tensor(4)), x.split(m.tensor([3])),
                                x.split(m.tensor(2.0)), x.split(m.tensor(2), dim=0)[0].grad_fn is None),
                  np.arange(6.0))
    raises_like_torch(lambda m: m.arange(6).split(m.tensor([2, 4])))
    # the ATen ops parse it as an int: a one-element integer tensor, not a float one
    same_as_torch(lambda m, x: (m.split_copy(x, m.tensor(2)), m.unsafe_split(x, m.tensor(2)),
                                m.unsafe_chunk(x, m.tensor(2)), m.chunk(x, m.tensor(2))), np.arange(6.0))
    for call in (lambda m: m.split_copy(m.arange(6.0), m.tensor(1.5)), lambda m: m.unsafe_split(m.arange(6.0), m.tensor(1.5)),
                 lambda m: m.unsafe_chunk(m.arange(6.0), m.tensor(1.5)), lambda m: m.chunk(m.arange(6.0), m.tensor(2.0))):
        raises_like_torch(call)


def test_tensor_methods_take_torchs_keyword_names():
    # torch's Python-level Tensor methods (torch/_tensor.py): each parameter name they accept by keyword is
    # accepted by torchlike's method of that name
    missing = {}
    for name, fn in vars(torch._tensor.Tensor).items():
        if name.startswith("_") or not inspect.isfunction(fn):
            continue
        theirs = [p.name for p in list(inspect.signature(fn).parameters.values())[1:]
                  if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        ours = inspect.signature(getattr(torchlike.Tensor, name)).parameters.values()
        if any(p.kind == p.VAR_KEYWORD for p in ours):
            continue
        lacking = [n for n in theirs if n not in {p.name for p in ours}]
        if lacking:
            missing[name] = lacking
    assert missing == {}


@pytest.mark.parametrize("part", ["real", "imag", "view_as_real"])
def test_views_of_the_real_parts_of_a_complex_tensor_keep_the_real_dtype(part):
    # (a shape view of x.real came out complex64 while its values were real: e3nn's so3_generators returns
    # torch.real(X) and indexes it, and its Wigner D matrices turned complex)
    def fn(m, x):
        r = getattr(m, part)(m.view_as_complex(x))
        return r[0], r.T, r[:, 1], r.reshape(-1), r.unsqueeze(0), r[None].expand(2, *r.shape), r[1] * 2.0
    same_as_torch(fn, np.arange(16, dtype=np.float32).reshape(2, 4, 2), grad=False)


def _complex_views_alias(m, x):
    """view_as_real / view_as_complex are views: writes through either reach the other tensor, with torch's
    _base, strides and gradients (make_tensor fills a complex tensor through view_as_real)."""
    z = m.view_as_complex(x)
    r = m.view_as_real(z.clone())
    r[0, 1] = 3.0
    r.mul_(2)
    z.mul_(1j)
    zr = m.view_as_real(z)
    zr[1:].zero_()
    w = m.view_as_complex(x.detach().clone().requires_grad_())
    g, = m.autograd.grad((m.view_as_real(w * (1 + 2j)) ** 2).sum(), w._base)
    return (x, r, r._base.abs(), zr._base is z, r.stride(), m.view_as_complex(x[1:]).stride(), zr.stride(), g,
            type(m.view_as_real(w).grad_fn).__name__)


def test_view_as_real_and_complex_are_views_like_torch():
    same_as_torch(_complex_views_alias, np.array([[1, 2], [-3.5, 0.25], [0.5, -1]], np.float32), grad=False)


@pytest.mark.parametrize("dtype", ["float32", "int32", "float64", "int64", "uint8", "float16", "complex128"])
def test_view_dtype_of_a_complex_tensor_like_torch(dtype):
    # (lax's bitcast refuses complex: JAX's error reached the user)
    def fn(m, x):
        z = m.view_as_complex(x)
        if dtype == "complex128":
            return z.reshape(2, 2).view(getattr(m, dtype)), z.view(m.float64).view(m.complex64)
        v = z.view(getattr(m, dtype))
        return v, v[:, 1:], z[0].view(getattr(m, dtype))
    same_as_torch(fn, np.array([[[1, 2], [-3.5, 0.25]], [[0.5, -1], [7, 0]]], np.float32), grad=False)


def test_view_dtype_into_complex_and_bool_like_torch():
    same_as_torch(lambda m, x: (x.view(m.complex64), x.view(m.float64).view(m.complex128), x.view(m.int32)),
                  np.arange(8, dtype=np.float32).reshape(2, 4), grad=False)
    same_as_torch(lambda m, x: (x.view(m.bool), x.view(m.bool).view(m.uint8), x.view(m.int8)),
                  np.array([0, 1, 1, 0], np.uint8), grad=False)


# ---- views made under no_grad / inference_mode of a tensor that requires grad --------------------------------
def _nograd_views(m):
    x = m.ones(3, requires_grad=True)
    y = x * 1
    with m.no_grad():
        v, w, d, dv, r = x[:2], y[:2], x.detach(), x.detach()[:1], x.view(3)
        parts = x.unbind(0) + x.split(1)
    with m.inference_mode():
        iv = y[:2]
    return x, y, v, w, d, dv, r, parts, iv


@pytest.mark.parametrize("mod", [torch, torchlike], ids=["torch", "torchlike"])
def test_no_grad_views_require_grad_and_their_gradient_goes_nowhere(mod):
    x, y, v, w, d, dv, r, parts, iv = _nograd_views(mod)
    flags = [t.requires_grad for t in (v, w, d, dv, r, iv) + parts]
    assert flags == [True, True, False, False, True, True] + [True] * 6
    assert v.is_leaf and v.grad_fn is None and w.is_leaf and w.grad_fn is None
    seen = []
    v.register_hook(seen.append)
    (v * 2).sum().backward()  # no error; neither the view nor its base gets a gradient, no hook runs
    assert x.grad is None and v.grad is None and seen == []
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        mod.autograd.grad((v * 2).sum(), v)


@pytest.mark.parametrize("which,mode", [("v", "no_grad"), ("w", "no_grad"), ("iv", "inference")])
def test_in_place_on_a_no_grad_view_with_grad_mode_on_raises_like_torch(which, mode):
    msgs = []
    for m in (torch, torchlike):
        x, y, v, w, d, dv, r, parts, iv = _nograd_views(m)
        t = {"v": v, "w": w, "iv": iv}[which]
        with pytest.raises(RuntimeError) as e:
            t.mul_(2)
        msgs.append(str(e.value))
        with m.no_grad():  # inside no_grad the write is allowed and reaches the base
            w.mul_(3)
        assert y.detach().tolist() == [3.0, 3.0, 1.0]
    assert msgs[0] == msgs[1] and msgs[0].startswith(f"A view was created in {mode} mode")


def test_views_of_a_detached_tensor_stay_out_of_the_graph_after_writes():
    """A view of ``t.detach()`` (or a detached view) re-read after its storage was written stays outside
    autograd as in torch (pykan's symbolic fit reads such views after in-place writes to the shared storage)."""
    def fn(m):
        w = m.arange(12.).reshape(3, 4).requires_grad_()
        p = w * 2
        d = p.detach()
        v = d[:, 1]
        p.mul_(w)  # a recorded write into the storage d and v share
        q = (w * 3).permute(1, 0)
        dq = q.detach()  # a detached view
        q[0] = w[:, 0]
        r = w * 4
        rv = r.detach().permute(1, 0)
        rv[0] = 5.0  # a write through the detached alias
        y = rv[:, 1]
        return [(t.requires_grad, t.grad_fn is None, t.detach().requires_grad) for t in (d, v, dq, dq[:, 0], y)], \
            v + 0, dq + 0, y + 0, r.requires_grad
    same_as_torch(fn, grad=False)


@pytest.mark.parametrize("case", ["int32", "bool", "complex64", "bfloat16", "0-d", "last-dim-3", "strided",
                                  "offset-odd", "real-of-real"])
def test_view_as_complex_and_real_errors_match_torch(case):
    # llama's RoPE calls view_as_complex on x.float(): a bfloat16 or int input is refused with torch's message
    def fn(m):
        if case == "real-of-real":
            return m.view_as_real(m.zeros(2))
        shape = {"0-d": (), "last-dim-3": (2, 3), "strided": (4, 4), "offset-odd": (3, 2)}.get(case, (2, 2))
        dtype = getattr(m, case) if case in ("int32", "bool", "complex64", "bfloat16") else m.float32
        x = m.zeros(shape, dtype=dtype)
        x = {"strided": lambda t: t[:, ::2],
             "offset-odd": lambda t: t.flatten()[1:5].view(2, 2)}.get(case, lambda t: t)(x)
        return m.view_as_complex(x)
    raises_like_torch(fn)


def test_view_as_complex_of_half_reads_and_writes_like_torch():
    # torch gives complex32; torchlike stores it as complex64 (docs/differences.md), with the same values,
    # and a write through the complex view reaches the float16 base rounded to half as in torch
    def fn(m):
        x = m.tensor([[1.5, -2.25], [0.1, 3.0]], dtype=m.float16)
        c = m.view_as_complex(x)
        before = c.to(m.complex64).clone()
        c.mul_(2)
        return before, x, m.view_as_real(c).to(m.float32)
    same_as_torch(fn, grad=False)
    raises_like_torch(lambda m: m.polar(m.ones(2, dtype=m.float16), m.ones(2, dtype=m.float16)), quiet=True)


def test_squeeze_in_place_without_dims_like_torch():
    """``x.squeeze_()`` squeezes every size-1 dim (torchopt's Adam count: ``zeros(1).squeeze_()``), while an
    explicit ``dim=None`` is the parser's TypeError, for the method, the in-place method and the function."""
    def fn(m, x):
        return m.zeros(1, dtype=m.int64).squeeze_(), x.reshape(1, 6, 1).clone().squeeze_(), \
            x.reshape(2, 1, 3).clone().squeeze_(1)
    same_as_torch(fn, np.arange(6.0, dtype=np.float32))
    for call in (lambda m: m.zeros(2, 1).squeeze_(None), lambda m: m.zeros(2, 1).squeeze(None),
                 lambda m: m.squeeze(m.zeros(2, 1), None)):
        raises_like_torch(call, match=r"^squeeze_?\(\)")


@pytest.mark.parametrize("call", [
    lambda m, x: m.permute(x, 1, 0), lambda m, x: m.permute(x[0], 0), lambda m, x: m.permute(x, dims=1),
    lambda m, x: x.permute(dims=1), lambda m, x: m.flip(x, 0), lambda m, x: m.flip(x, dims=0),
    lambda m, x: x.flip(dims=0)], ids=["permute-spread", "permute-int", "permute-kw-int", "method-permute-kw-int",
                                      "flip-int", "flip-kw-int", "method-flip-kw-int"])
def test_permute_and_flip_functions_take_only_an_int_list_like_torch(call):
    raises_like_torch(call, A)


@pytest.mark.parametrize("call", [
    lambda m, x: x.permute(1, 0), lambda m, x: x.permute([1, 0]), lambda m, x: x[0].permute(0),
    lambda m, x: x.permute(m.tensor(1), 0), lambda m, x: x.flip(0), lambda m, x: x.flip(1, 0),
    lambda m, x: x.flip(m.tensor(1)), lambda m, x: m.permute(x, m.Size([1, 0])), lambda m, x: m.flip(x, [0])],
    ids=["spread", "list", "lone-int", "tensor-dim", "flip-int", "flip-spread", "flip-tensor", "size", "flip-list"])
def test_permute_and_flip_methods_take_spread_dims_like_torch(call):
    same_as_torch(call, A)


@pytest.mark.parametrize("base_shape, take, result_shape", [
    ((6, 4), lambda b: b.t(), (9, 4)), ((10, 4), lambda b: b[:3], (2, 2)), ((10, 4), lambda b: b[2:5], (8, 4)),
    ((10, 4), lambda b: b[:3], (20, 4)), ((3, 4), lambda b: b[:, 1], (0,))])
def test_out_view_of_another_shape_is_resized_in_its_base_like_torch(base_shape, take, result_shape):
    def f(m):
        base = m.zeros(base_shape)
        out = take(base)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = m.add(m.ones(result_shape), 1, out=out)
        return r is out, out, out.stride(), out.storage_offset(), base, [str(x.message) for x in w]
    same_as_torch(f)


@pytest.mark.parametrize("take, n", [(lambda a: a, 3), (lambda a: a[:2], 3), (lambda a: a[:2], 6), (lambda a: a[:2], 1)])
def test_out_resize_in_numpy_memory_is_torchs_not_resizable_error_past_its_end(take, n):
    def f(m):
        out = take(m.from_numpy(np.zeros(4, np.int64)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return m.gather(m.arange(10), 0, m.arange(n), out=out)
    if n > 4:
        raises_like_torch(f)
    else:
        same_as_torch(f)


def test_gather_out_view_overlapping_the_index_once_resized_raises_like_torch():
    # out and index are disjoint views of one tensor until out is resized over the index (torch checks after)
    def f(m):
        base = m.tensor([2, 1, 0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return m.gather(base.clone(), 0, base[1:], out=base[:1])
    raises_like_torch(f)
