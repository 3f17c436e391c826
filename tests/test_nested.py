"""torch.nested against real torch: constructors, the nested tensor's metadata and repr, the ops of the
"Accelerating PyTorch Transformers with Nested Tensors" pattern and autograd through them, and the errors of
unsupported ops. Every expectation is computed by torch in the test."""
import re
import warnings

import numpy as np
import pytest

import torchlike
from conftest import assert_same, example_program_vs_torch, raises_like_torch

torch = pytest.importorskip("torch", reason="torch is the oracle")

rng = np.random.default_rng(0)
A, B, C = (rng.standard_normal(s).astype(np.float32) for s in ((2, 4), (3, 4), (1, 4)))


def _norm(text):
    """A repr with the nested ints' numbers and object addresses left out (process-wide counters)."""
    return re.sub(r"0x[0-9a-f]+", "0x", re.sub(r"j\d+", "j", text))


def _both(fn, *arrays, grad=False):
    """``fn(mod, *tensors)`` for torch and torchlike, the arrays made tensors of each (leaves if ``grad``)."""
    out = {}
    for mod in (torch, torchlike):
        ins = [mod.tensor(a, requires_grad=grad) for a in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[mod] = (fn(mod, *ins), ins)
    return out[torchlike], out[torch]


def _same_nested(ours, theirs, rtol=1e-5, atol=1e-6):
    assert ours.is_nested and theirs.is_nested
    assert str(ours.layout) == str(theirs.layout)
    assert ours.dim() == theirs.dim()
    assert ours.requires_grad == theirs.requires_grad
    if theirs.layout == torch.jagged:
        assert _norm(repr(ours.shape)) == _norm(repr(theirs.shape))
        assert ours.is_contiguous() == theirs.is_contiguous()
    mine, their = ours.unbind(), theirs.unbind()
    assert len(mine) == len(their)
    for m, t in zip(mine, their):
        assert_same(m, t, rtol, atol)


def _same(ours, theirs, rtol=1e-5, atol=1e-6):
    if isinstance(theirs, torch.Tensor) and theirs.is_nested:
        _same_nested(ours, theirs, rtol, atol)
    else:
        assert_same(ours, theirs, rtol, atol)


LAYOUTS = ["jagged", "strided"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_constructors_metadata_and_repr(layout):
    def make(m, a, b):
        return m.nested.nested_tensor([a, b], layout=getattr(m, layout))
    (ours, _), (theirs, _) = _both(make, A, B)
    _same_nested(ours, theirs)
    assert _norm(repr(ours)) == _norm(repr(theirs))
    assert ours.size(0) == theirs.size(0) and ours.size(2) == theirs.size(2) and ours.size(-1) == theirs.size(-1)
    assert ours.numel() == theirs.numel()
    if layout == "jagged":
        assert len(ours) == len(theirs)
    else:
        raises_like_torch(lambda m: len(make(m, m.tensor(A), m.tensor(B))))
    assert_same(ours.values(), theirs.values())
    if layout == "jagged":
        assert_same(ours.offsets(), theirs.offsets())
        assert ours.lengths() is None and theirs.lengths() is None
        assert _norm(str(ours.size(1))) == _norm(str(theirs.size(1)))
    else:
        raises_like_torch(lambda m: make(m, m.tensor(A), m.tensor(B)).size(1))
        raises_like_torch(lambda m: make(m, m.tensor(A), m.tensor(B)).shape)
    raises_like_torch(lambda m: make(m, m.tensor(A), m.tensor(B)).size(5))
    assert_same(ours.to_padded_tensor(0.5), theirs.to_padded_tensor(0.5))
    assert_same(torchlike.nested.to_padded_tensor(ours, -1.0, output_size=(3, 4, 5)),
                torch.nested.to_padded_tensor(theirs, -1.0, output_size=(3, 4, 5)))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_requires_grad_dtype_and_detach(layout):
    def make(m, a, b):
        nt = m.nested.nested_tensor([a, b], layout=getattr(m, layout), dtype=m.float64, requires_grad=True)
        return nt, nt.detach(), nt.to(m.float32), (nt * 2)
    (ours, _), (theirs, _) = _both(make, A, B)
    for o, t in zip(ours, theirs):
        _same_nested(o, t)
        assert o.is_leaf == t.is_leaf and (o.grad_fn is None) == (t.grad_fn is None)
        assert _norm(repr(o)) == _norm(repr(t))
    (ours, _), (theirs, _) = _both(lambda m, a, b: m.nested.nested_tensor([a, b], layout=getattr(m, layout))
                                   .requires_grad_(), A, B)
    _same_nested(ours, theirs)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_leaf_nested_tensor_grad_is_nested_like_torch(layout):
    def run(m, a, b):
        nt = m.nested.nested_tensor([a, b], layout=getattr(m, layout), requires_grad=True)
        out = m.nn.functional.linear(nt, m.ones(3, 4) / 3) * 2
        m.nested.to_padded_tensor(out, 0.0).pow(2).sum().backward()
        return nt.grad, nt.is_leaf, out.is_leaf, out.requires_grad
    (ours, _), (theirs, _) = _both(run, A, B)
    _same_nested(ours[0], theirs[0])
    assert _norm(repr(ours[0])) == _norm(repr(theirs[0]))
    assert ours[1:] == theirs[1:]


def test_module_aliases_match_torch():
    assert torchlike.nested.Tensor is torchlike.Tensor and torchlike.nested.F is torchlike.nn.functional
    assert torchlike.nested.DType is torchlike.dtype and torch.nested.DType is torch.dtype
    assert torchlike.nested.Device is torchlike.device and torch.nested.Device is torch.device
    assert str(torchlike.jagged) == str(torch.jagged) == "torch.jagged"


def test_jagged_from_values_offsets_lengths_and_narrow():
    v = rng.standard_normal((5, 3)).astype(np.float32)

    def make(m, v):
        off = m.tensor([0, 2, 5])
        a = m.nested.nested_tensor_from_jagged(v, off)
        b = m.nested.nested_tensor_from_jagged(v, lengths=m.tensor([2, 3]))
        c = m.nested.nested_tensor_from_jagged(v, off, lengths=m.tensor([1, 2]))
        x = m.arange(15.).reshape(3, 5)
        d = m.nested.narrow(x, 1, m.tensor([0, 1, 2]), m.tensor([2, 3, 1]), layout=m.jagged)
        e = m.nested.narrow(x, 0, 1, 2, layout=m.strided)
        return a, b, c, d, e, a.values()._base is v, a.offsets() is off
    (ours, _), (theirs, _) = _both(make, v)
    for o, t in zip(ours[:5], theirs[:5]):
        _same_nested(o, t)
        assert _norm(repr(o)) == _norm(repr(t))
    assert ours[5:] == theirs[5:]
    raises_like_torch(lambda m: make(m, m.tensor(v))[2].to_padded_tensor(0.0))
    raises_like_torch(lambda m: m.nested.narrow(m.ones(3, 4), 1, 1, 2))


def test_as_nested_tensor_and_masked_select_keep_history():
    def make(m, a, b):
        nt = m.nested.as_nested_tensor([a, b], layout=m.jagged)
        nt.sin().to_padded_tensor(0.0).sum().backward()
        x = m.arange(6.).reshape(2, 3)
        ms = m.nested.masked_select(x, m.tensor([[True, False, True], [False, False, True]]))
        return nt, nt.is_leaf, ms
    (ours, oins), (theirs, tins) = _both(make, A, B, grad=True)
    _same_nested(ours[0], theirs[0])
    _same_nested(ours[2], theirs[2])
    assert ours[1] == theirs[1]
    for o, t in zip(oins, tins):
        assert_same(o.grad, t.grad)


def test_nested_transformer_program_prints_what_torch_prints():
    """Jagged sentences -> attention from Linear + sdpa -> padded output, four SGD steps, grads to components."""
    example_program_vs_torch("nested_transformer.py", 1e-4)


def test_jagged_ragged_in_a_later_dim_matches_torch():
    (ours, _), (theirs, _) = _both(lambda m, a, b: m.nested.nested_tensor([a, b], layout=m.jagged),
                                   rng.standard_normal((2, 3)).astype(np.float32),
                                   rng.standard_normal((2, 5)).astype(np.float32))
    _same_nested(ours, theirs)
    assert _norm(repr(ours)) == _norm(repr(theirs))
    raises_like_torch(lambda m: m.nested.nested_tensor([m.ones(2, 3), m.ones(3, 4)], layout=m.jagged))


def test_construction_errors_match_torch():
    raises_like_torch(lambda m: m.nested.as_nested_tensor(m.nested.nested_tensor([m.ones(2, 3)]), layout=m.jagged))
    raises_like_torch(lambda m: m.nested.as_nested_tensor(m.ones(3)))
    raises_like_torch(lambda m: m.nested.as_nested_tensor(3))
    raises_like_torch(lambda m: m.nested.nested_tensor([m.ones(2, 3), m.ones(4)], layout=m.jagged))
    raises_like_torch(lambda m: m.nested.nested_tensor([m.ones(2, 3), m.ones(4)]))
    raises_like_torch(lambda m: m.nested.nested_tensor([m.tensor(1.)], layout=m.jagged))
    raises_like_torch(lambda m: m.nested.nested_tensor(3))


OPS = {
    "sin": lambda m, x: x.sin(),
    "relu": lambda m, x: m.nn.functional.relu(x),
    "gelu": lambda m, x: m.nn.functional.gelu(x),
    "add_self": lambda m, x: x + x * 3,
    "scalar": lambda m, x: 2.0 * x / 4 - 1,
    "reflected": lambda m, x: 1.0 + 3.0 * x,
    "softmax": lambda m, x: m.nn.functional.softmax(x, -1),
    "linear": lambda m, x: m.nn.functional.linear(x, m.ones(5, 4) / 7, m.arange(5.)),
    "matmul_nt": lambda m, x: m.matmul(x, x.transpose(1, 2)) if x.layout == m.strided else
    x.unflatten(-1, (2, 2)) @ x.unflatten(-1, (2, 2)).sin(),
}
JAGGED_ONLY = {
    "dense_bcast": lambda m, x: x * m.arange(4.),
    "rsub": lambda m, x: 2.0 - x,
    "compare_mask": lambda m, x: (x > 0.1) * x.exp() + ((x <= 0.1) & ~(x > 1)).float(),
    "in_place": lambda m, x: x.clone().mul_(2).add_(1).tanh_(),
    "dense_bcast_2d": lambda m, x: x + m.ones(1, 4),
    "layer_norm": lambda m, x: m.nn.functional.layer_norm(x, (4,)),
    "matmul_dense": lambda m, x: m.matmul(x, m.ones(4, 3)),
    "mean_keep": lambda m, x: x.mean(2, keepdim=True),
    "sum_all": lambda m, x: x.sum(),
    "unflatten_transpose": lambda m, x: x.unflatten(-1, (2, 2)).transpose(1, 2),
    "flatten": lambda m, x: x.unflatten(-1, (2, 2)).transpose(1, 2).transpose(1, 2).flatten(-2),
    "view": lambda m, x: x.view(2, -1, 2, 2),
}
STRIDED_ONLY = {
    "bmm": lambda m, x: m.bmm(x, x.transpose(1, 2)),
    "layer_norm_affine": lambda m, x: m.nn.functional.layer_norm(x, (4,), m.ones(4) * 2, m.zeros(4)),
    "sum_keepdim": lambda m, x: x.sum(-1, keepdim=True),
}


# torch computes these forward but has no backward for them on a jagged tensor (torchlike has: differences.md)
FORWARD_ONLY = {
    "log_softmax": lambda m, x: m.log_softmax(x, dim=2),
    "sum_last": lambda m, x: x.sum(-1),
    "sum_ragged": lambda m, x: x.sum(1),
    "amax_last": lambda m, x: x.amax(-1),
    "softmax_ragged": lambda m, x: m.nn.functional.softmax(x, 1),
}


def _cases():
    for name in OPS:
        for lay in LAYOUTS:
            yield name, lay, OPS[name], True
    for name, f in JAGGED_ONLY.items():
        yield name, "jagged", f, True
    for name, f in STRIDED_ONLY.items():
        yield name, "strided", f, True
    for name, f in FORWARD_ONLY.items():
        yield name, "jagged", f, False


@pytest.mark.parametrize("name,layout,fn,grad", list(_cases()), ids=[f"{c[0]}-{c[1]}" for c in _cases()])
def test_op_values_and_grads_match_torch(name, layout, fn, grad):
    def run(m, a, b):
        nt = m.nested.as_nested_tensor([a, b], layout=getattr(m, layout))
        out = fn(m, nt)
        if grad:
            back = out.transpose(1, out._ragged_idx) if out.is_nested and out.layout == m.jagged else out
            dense = back.to_padded_tensor(0.0) if out.is_nested else out
            (dense * dense).sum().backward()
        return out
    (ours, oins), (theirs, tins) = _both(run, A, B, grad=grad)
    _same(ours, theirs, 1e-5, 1e-5)
    for o, t in zip(oins, tins):
        if grad:
            assert_same(o.grad, t.grad, 1e-5, 1e-5)


def test_softmax_along_the_ragged_dim_has_the_dense_gradient():
    """torch 2.13's backward of a jagged softmax over the ragged dimension is not softmax's (its columns do not
    sum to zero); torchlike's equals torch's dense softmax of each component (docs/differences.md)."""
    ours = [torchlike.tensor(t, requires_grad=True) for t in (A, B)]
    out = torchlike.softmax(torchlike.nested.as_nested_tensor(ours, layout=torchlike.jagged), 1)
    out.to_padded_tensor(0.0).pow(2).sum().backward()
    for o, t in zip(ours, (A, B)):
        t = torch.tensor(t, requires_grad=True)
        torch.softmax(t, 0).pow(2).sum().backward()
        assert_same(o.grad, t.grad, 1e-5, 1e-6)


def test_sdpa_on_jagged_heads_matches_torch():
    q, k, v = (rng.standard_normal((5, 2, 3)).astype(np.float32) for _ in range(3))

    def run(m, q, k, v, causal):
        off = m.tensor([0, 2, 5])
        nts = [m.nested.nested_tensor_from_jagged(t, off).transpose(1, 2) for t in (q, k, v)]
        out = m.nn.functional.scaled_dot_product_attention(*nts, is_causal=causal)
        out.transpose(1, 2).to_padded_tensor(0.0).pow(2).sum().backward()
        return out
    (ours, oins), (theirs, tins) = _both(lambda m, *a: run(m, *a, False), q, k, v, grad=True)
    _same_nested(ours, theirs, 1e-5, 1e-5)
    for o, t in zip(oins, tins):
        assert_same(o.grad, t.grad, 1e-5, 1e-5)
    # torch's CPU kernels for jagged inputs: no causal mask, and inputs contiguous once transposed back
    raises_like_torch(lambda m: run(m, m.tensor(q), m.tensor(k), m.tensor(v), True))



def test_nn_linear_and_layernorm_modules_on_jagged():
    def run(m, a, b):
        m.manual_seed(0)
        lin, ln = m.nn.Linear(4, 6), m.nn.LayerNorm(6)
        nt = m.nested.as_nested_tensor([a, b], layout=m.jagged)
        out = ln(lin(nt))
        out.to_padded_tensor(0.0).sum().backward()
        return out, lin.weight.grad, ln.weight.grad
    (ours, _), (theirs, _) = _both(run, A, B, grad=True)
    for o, t in zip(ours, theirs):
        _same(o, t, 1e-5, 1e-5)


UNSUPPORTED = [
    ("cumsum", lambda m, x: x.cumsum(1)),
    ("sort", lambda m, x: x.sort()),
    ("flip", lambda m, x: x.flip(1)),
    ("floor_divide", lambda m, x: x // x),
    ("hardswish", lambda m, x: m.nn.functional.hardswish(x)),
]
STRIDED_UNSUPPORTED = [("exp", lambda x: x.exp()), ("sigmoid_", lambda x: x.sigmoid_()),
                       ("lt", lambda x: x < 0), ("pow", lambda x: x ** 2), ("bitwise_not", lambda x: ~(x > 0)),
                       ("maximum", lambda x: x.maximum(x))]


@pytest.mark.parametrize("name,fn", STRIDED_UNSUPPORTED, ids=[u[0] for u in STRIDED_UNSUPPORTED])
def test_pointwise_ops_torch_lacks_for_strided_raise_like_torch(name, fn):
    raises_like_torch(lambda m: fn(m.nested.nested_tensor([m.ones(2, 3), m.ones(1, 3)])),
                      match=f"^Could not run 'aten::{name}")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name,fn", UNSUPPORTED, ids=[u[0] for u in UNSUPPORTED])
def test_unsupported_ops_raise_torch_error_naming_the_op(layout, name, fn):
    def run(m):
        return fn(m, m.nested.nested_tensor([m.ones(2, 3), m.ones(1, 3)], layout=getattr(m, layout)))
    raises_like_torch(run, match=f"aten.?.?{name}")


JAGGED_ERRORS = {
    "binary_other_j": lambda m, x: x + m.nested.nested_tensor([m.ones(2, 4), m.ones(3, 4)], layout=m.jagged),
    "dense_ragged": lambda m, x: x + m.ones(5, 4),
    "softmax_batch": lambda m, x: m.nn.functional.softmax(x, 0),
    "transpose_batch": lambda m, x: x.transpose(0, 1),
    "sum_batch": lambda m, x: x.sum(0),
    "getitem_slice": lambda m, x: x[:, 0],
    "sum_ragged_and_last": lambda m, x: x.sum((1, 2)),
    "matmul_ragged": lambda m, x: x @ x.transpose(1, 2),
    "bmm_ragged": lambda m, x: m.bmm(x, x.transpose(1, 2)),
    "softmax_ragged_heads": lambda m, x: x.unflatten(-1, (2, 2)).transpose(1, 2).softmax(2),
    "linear_ragged_last": lambda m, x: m.nn.functional.linear(x.transpose(1, 2), m.ones(3, 2)),
}


@pytest.mark.parametrize("name", list(JAGGED_ERRORS))
def test_jagged_errors_match_torch(name):
    def run(m):
        x = m.nested.nested_tensor([m.ones(2, 4), m.ones(3, 4)], layout=m.jagged)
        return JAGGED_ERRORS[name](m, x)
    _raises_alike(run)


def _raises_alike(fn):
    """torch's error type and message, the nested ints' numbers aside."""
    try:
        fn(torch)
    except Exception as e:  # noqa: BLE001
        theirs = e
    else:
        raise AssertionError("torch did not raise")
    ours = raises_like_torch(fn, match=".")
    assert _norm(str(ours)) == _norm(str(theirs)), (str(ours), str(theirs))


MORE_JAGGED = {
    "cat_last": lambda m, x: m.cat([x, x * 2], -1),
    "unsqueeze_last": lambda m, x: x.unsqueeze(-1) * 2,
    "unsqueeze_1": lambda m, x: x.unsqueeze(1).sin(),
    "select_last": lambda m, x: x.select(2, 1),
    "select_batch": lambda m, x: x.select(0, 1),
    "squeeze_after": lambda m, x: x.unsqueeze(-1).squeeze(-1),
    "deepcopy": lambda m, x: __import__("copy").deepcopy(x.detach()),
    "max_all": lambda m, x: x.max(),
}


@pytest.mark.parametrize("name", list(MORE_JAGGED))
def test_more_jagged_ops_match_torch(name):
    (ours, _), (theirs, _) = _both(lambda m, a, b: MORE_JAGGED[name](m, m.nested.as_nested_tensor(
        [a, b], layout=m.jagged)), A, B)
    _same(ours, theirs)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_dropout_draws_torch_stream(layout):
    def run(m, a, b):
        m.manual_seed(3)
        nt = m.nested.nested_tensor([a, b], layout=getattr(m, layout))
        return m.nn.functional.dropout(nt, 0.5), m.nn.Dropout(0.25)(nt)
    (ours, _), (theirs, _) = _both(run, A, B)
    for o, t in zip(ours, theirs):
        _same_nested(o, t)


def test_jagged_embedding_matches_torch():
    (ours, _), (theirs, _) = _both(lambda m, w: m.nn.functional.embedding(m.nested.nested_tensor(
        [m.tensor([1, 2]), m.tensor([0])], layout=m.jagged), w), rng.standard_normal((3, 2)).astype(np.float32))
    _same(ours, theirs)


HOST_ERRORS = {
    "numpy": lambda m, x: x.numpy(),
    "tolist": lambda m, x: x.tolist(),
    "bool": lambda m, x: bool(x),
    "item": lambda m, x: x.item(),
    "cat_batch": lambda m, x: m.cat([x, x], 0),
    "unsqueeze_batch": lambda m, x: x.unsqueeze(0),
    "select_ragged": lambda m, x: x.select(1, 0),
}


@pytest.mark.parametrize("name", list(HOST_ERRORS))
def test_jagged_host_and_shape_errors_match_torch(name):
    raises_like_torch(lambda m: HOST_ERRORS[name](m, m.nested.nested_tensor([m.ones(2, 3), m.ones(1, 3)],
                                                                           layout=m.jagged)))


def test_saving_a_nested_tensor_raises_a_clear_error():
    """torch pickles nested tensors (``_rebuild_njt``); torchlike does not write them (docs/differences.md)."""
    import io
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.save(torch.nested.nested_tensor([torch.ones(2)], layout=torch.jagged), io.BytesIO())
    nt = torchlike.nested.nested_tensor([torchlike.ones(2)], layout=torchlike.jagged)
    with pytest.raises(RuntimeError, match="torchlike cannot save nested tensors"):
        torchlike.save(nt, io.BytesIO())
    buf = io.BytesIO()
    torchlike.save({"values": nt.values(), "offsets": nt.offsets()}, buf)
    buf.seek(0)
    back = torchlike.load(buf)
    assert back["values"].tolist() == [1.0, 1.0]
    assert back["offsets"].tolist() == [0, 2]


MORE_ERRORS = {
    "layer_norm_ragged": lambda m: m.nn.functional.layer_norm(m.nested.nested_tensor(
        [m.ones(2, 3), m.ones(1, 3)], layout=m.jagged).transpose(1, 2), (2,)),
    "strided_transpose_batch": lambda m: m.nested.nested_tensor([m.ones(2, 3), m.ones(1, 3)]).transpose(0, 1),
    "strided_softmax_batch": lambda m: m.nested.nested_tensor([m.ones(2, 3), m.ones(1, 3)]).softmax(0),
    "unbind_1": lambda m: m.nested.nested_tensor([m.ones(2, 3), m.ones(1, 3)], layout=m.jagged).unbind(1),
    "padded_size_too_small": lambda m: m.nested.to_padded_tensor(
        m.nested.nested_tensor([m.ones(2, 3), m.ones(1, 3)]), 0.0, (2, 1, 3)),
    "padded_size_length": lambda m: m.nested.to_padded_tensor(
        m.nested.nested_tensor([m.ones(2, 3), m.ones(1, 3)]), 0.0, (2, 3)),
    "from_jagged_no_offsets": lambda m: m.nested.nested_tensor_from_jagged(m.ones(3, 2)),
    "sparse_layout": lambda m: m.nested.nested_tensor([m.ones(2)], layout=m.sparse_coo),
    "linear_bad_weight": lambda m: m.nn.functional.linear(m.nested.nested_tensor(
        [m.ones(2, 3), m.ones(1, 3)], layout=m.jagged), m.ones(4, 5)),
    "mean_batch": lambda m: m.nested.nested_tensor([m.ones(2, 3), m.ones(1, 3)], layout=m.jagged).mean(0),
    "strided_size_negative": lambda m: m.nested.nested_tensor([m.ones(2, 3), m.ones(1, 3)]).size(-2),
}


@pytest.mark.parametrize("name", list(MORE_ERRORS))
def test_more_errors_match_torch(name):
    raises_like_torch(MORE_ERRORS[name])


def test_strided_dense_operand_error_matches_torch():
    raises_like_torch(lambda m: m.nested.nested_tensor([m.ones(2, 4), m.ones(3, 4)]) * m.ones(4))
    raises_like_torch(lambda m: m.nested.nested_tensor([m.ones(2, 4), m.ones(3, 4)]).sum(-1))
    raises_like_torch(lambda m: 2.0 - m.nested.nested_tensor([m.ones(2, 4), m.ones(3, 4)]), match="rsub")
    raises_like_torch(lambda m: m.log_softmax(m.nested.nested_tensor([m.ones(2, 4), m.ones(3, 4)]), 2),
                      match="_log_softmax")


def test_torch_nested_is_torchlike_nested_under_the_runner(tmp_path):
    import subprocess
    import sys
    script = tmp_path / "s.py"
    script.write_text("import torch\nfrom torch.nested import nested_tensor\nimport torch.nested as tn\n"
                      "nt = nested_tensor([torch.ones(2), torch.ones(3)], layout=torch.jagged)\n"
                      "print(type(nt).__module__.split('.')[0], tn is torch.nested, nt.shape)\n")
    r = subprocess.run([sys.executable, "-m", "torchlike", "run", str(script)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["torchlike", "True", "torch.Size([2,", "j1])"]
