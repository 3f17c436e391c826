"""Programs exported and saved by real PyTorch (``torch.export.save``) load with ``torchlike.export.load``
without torch and match torch's outputs: MLP, CNN, transformer block, with a dynamic batch dim; both the
training-IR graphs ``torch.export.export`` writes and the core-aten graphs of ``run_decompositions()``."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch writes the .pt2 archives and computes the expected outputs")
import torch.nn as tnn  # noqa: E402
import torch.nn.functional as tF  # noqa: E402

import torchlike  # noqa: E402

# torch's own run_decompositions() warns about its pytree internals
pytestmark = pytest.mark.filterwarnings("ignore:.*LeafSpec.*:FutureWarning")


class MLP(tnn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = tnn.Linear(8, 16), tnn.Linear(16, 4)

    def forward(self, x):
        return self.l2(tF.relu(self.l1(x)))


class CNN(tnn.Module):
    def __init__(self):
        super().__init__()
        self.c, self.bn, self.fc = tnn.Conv2d(3, 4, 3, padding=1), tnn.BatchNorm2d(4), tnn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        x = tF.max_pool2d(tF.relu(self.bn(self.c(x))), 2)
        return self.fc(torch.flatten(x, 1))


class Block(tnn.Module):
    def __init__(self, d=16, h=4):
        super().__init__()
        self.h = h
        self.ln1, self.qkv, self.o = tnn.LayerNorm(d), tnn.Linear(d, 3 * d), tnn.Linear(d, d)
        self.ln2, self.f1, self.f2 = tnn.LayerNorm(d), tnn.Linear(d, 4 * d), tnn.Linear(4 * d, d)

    def forward(self, x):
        B, T, D = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=-1)
        q, k, v = (t.view(B, T, self.h, D // self.h).transpose(1, 2) for t in (q, k, v))
        a = tF.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(B, T, D))
        return x + self.f2(tF.gelu(self.f1(self.ln2(x))))


MODELS = {"mlp": (MLP, (3, 8)), "cnn": (CNN, (2, 3, 8, 8)), "block": (Block, (2, 5, 16))}


def _write(tmp, name, decompose=False, train=False):
    torch.manual_seed(0)
    cls, shape = MODELS[name]
    m = cls().train(train)
    if name == "cnn":  # non-trivial running statistics
        with torch.no_grad():
            m.bn.running_mean.uniform_(-0.5, 0.5)
            m.bn.running_var.uniform_(0.5, 2.0)
    ep = torch.export.export(m, (torch.randn(*shape),), dynamic_shapes=({0: torch.export.Dim("batch")},))
    if decompose:
        ep = ep.run_decompositions()
    path = tmp / f"{name}{'_dec' if decompose else ''}{'_train' if train else ''}.pt2"
    torch.export.save(ep, path)
    return path, torch.export.load(path)


@pytest.mark.parametrize("decompose", [False, True], ids=["training_ir", "core_aten"])
@pytest.mark.parametrize("name", list(MODELS))
def test_torch_pt2_matches_torch_for_two_batch_sizes(tmp_path, name, decompose):
    path, tep = _write(tmp_path, name, decompose)
    ep = torchlike.export.load(path)
    mod, tmod = ep.module(), tep.module()
    for b in (2, 5):
        x = torch.randn(b, *MODELS[name][1][1:])
        with torchlike.no_grad(), torch.no_grad():
            y, ref = mod(torchlike.tensor(x.numpy())), tmod(x)
        assert tuple(y.shape) == tuple(ref.shape) and str(y.dtype) == str(ref.dtype)
        np.testing.assert_allclose(y.numpy(), ref.numpy(), rtol=1e-4, atol=1e-5)
    # one XLA program per input shape: the graph was traced (and compiled) once per batch size
    with torchlike.no_grad():
        mod(torchlike.randn(2, *MODELS[name][1][1:]))
    assert ep._fn[1].traces == 2


def test_gradients_flow_to_the_parameters_like_torch(tmp_path):
    path, tep = _write(tmp_path, "block")
    mod, tmod = torchlike.export.load(path).module(), tep.module()
    x = torch.randn(3, 5, 16)
    tx, ox = x.clone().requires_grad_(), torchlike.tensor(x.numpy()).requires_grad_()
    (tmod(tx) ** 2).mean().backward()
    y = mod(ox)
    assert y.grad_fn is not None
    (y ** 2).mean().backward()
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-6)
    for (k, p), (tk, tp) in zip(mod.named_parameters(), tmod.named_parameters()):
        assert k == tk
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=k)


def test_program_surface_matches_torch(tmp_path):
    path, tep = _write(tmp_path, "cnn")
    ep = torchlike.export.load(path)
    sig, tsig = ep.graph_signature, tep.graph_signature
    assert sig.parameters == tuple(tsig.parameters) and sig.buffers == tuple(tsig.buffers)
    assert sig.user_inputs == tuple(tsig.user_inputs) and sig.user_outputs == tuple(tsig.user_outputs)
    assert sig.inputs_to_parameters == dict(tsig.inputs_to_parameters)
    assert list(ep.state_dict) == list(tep.state_dict)
    for k, v in tep.state_dict.items():
        assert str(ep.state_dict[k].dtype) == str(v.dtype)
        np.testing.assert_array_equal(ep.state_dict[k].detach().numpy(), v.detach().numpy())
    assert isinstance(ep.state_dict["c.weight"], torchlike.nn.Parameter)
    mod = ep.module()
    assert list(mod.state_dict()) == list(tep.module().state_dict())
    assert "aten.conv2d.default" in str(ep.graph)
    with pytest.raises(RuntimeError) as theirs:
        tep(torch.randn(2, 3, 8, 8))
    with pytest.raises(RuntimeError) as ours:
        ep(torchlike.randn(2, 3, 8, 8))
    assert str(ours.value) == str(theirs.value)


def test_input_guards_match_torch(tmp_path):
    path, tep = _write(tmp_path, "cnn")
    mod, tmod = torchlike.export.load(path).module(), tep.module()
    for shape in [(2, 3, 9, 8), (2, 3, 8)]:
        with pytest.raises(Exception) as theirs:
            tmod(torch.randn(*shape))
        with pytest.raises(Exception) as ours:
            mod(torchlike.randn(*shape))
        assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match="Please check that the inputs have the same number"):
        tmod(torch.randn(2, 3, 8, 8), torch.randn(2, 3, 8, 8))
    with pytest.raises(ValueError, match="Please check that the inputs have the same number"):
        mod(torchlike.randn(2, 3, 8, 8), torchlike.randn(2, 3, 8, 8))


@pytest.mark.parametrize("decompose", [False, True], ids=["training_ir", "core_aten"])
def test_batch_norm_in_training_mode_updates_running_stats_like_torch(tmp_path, decompose):
    # training IR: in-place batch_norm + add_ on the buffers; core aten: buffer-mutation outputs
    path, tep = _write(tmp_path, "cnn", decompose, train=True)
    mod, tmod = torchlike.export.load(path).module(), tep.module()
    x = torch.randn(4, 3, 8, 8)
    np.testing.assert_allclose(mod(torchlike.tensor(x.numpy())).detach().numpy(), tmod(x).detach().numpy(),
                               rtol=1e-4, atol=1e-5)
    for k in ("bn.running_mean", "bn.running_var", "bn.num_batches_tracked"):
        np.testing.assert_allclose(mod.get_buffer(k).numpy(), tmod.get_buffer(k).numpy(), rtol=1e-5, atol=1e-6)


def test_bfloat16_weights_bounded_dim_and_extra_files(tmp_path):
    torch.manual_seed(0)
    m = MLP().to(torch.bfloat16)
    batch = torch.export.Dim("batch", min=2, max=6)
    tep = torch.export.export(m, (torch.randn(3, 8, dtype=torch.bfloat16),), dynamic_shapes=({0: batch},))
    torch.export.save(tep, tmp_path / "bf16.pt2", extra_files={"note.txt": "hello"})
    extra = {"note.txt": ""}
    ep = torchlike.export.load(tmp_path / "bf16.pt2", extra_files=extra)
    assert extra == {"note.txt": "hello"}
    assert ep.state_dict["l1.weight"].dtype is torchlike.bfloat16
    np.testing.assert_array_equal(ep.state_dict["l1.weight"].detach().float().numpy(),
                                  tep.state_dict["l1.weight"].detach().float().numpy())
    x = torch.randn(4, 8, dtype=torch.bfloat16)
    with torch.no_grad(), torchlike.no_grad():
        ref, out = tep.module()(x), ep.module()(torchlike.tensor(x.float().numpy()).to(torchlike.bfloat16))
    assert out.dtype is torchlike.bfloat16
    np.testing.assert_allclose(out.float().numpy(), ref.float().numpy(), rtol=2e-2, atol=2e-2)
    with pytest.raises(AssertionError) as theirs:
        tep.module()(torch.randn(7, 8, dtype=torch.bfloat16))
    with pytest.raises(AssertionError) as ours:
        ep.module()(torchlike.randn(7, 8, dtype=torchlike.bfloat16))
    assert str(ours.value) == str(theirs.value)


class Mixed(tnn.Module):
    """More layers: PReLU, bilinear upsampling, reflect padding, GroupNorm, pooling, normalize, MHA."""

    def __init__(self):
        super().__init__()
        self.c, self.act, self.gn = tnn.Conv2d(3, 8, 3), tnn.PReLU(8), tnn.GroupNorm(2, 8)
        self.mha = tnn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x):
        h = tF.pad(self.act(self.c(x)), (1, 1, 1, 1), mode="reflect")
        h = self.gn(tF.interpolate(h, scale_factor=2, mode="bilinear"))
        t = h.flatten(2).transpose(1, 2)
        t = t + self.mha(t, t, t, need_weights=False)[0]
        return tF.normalize(tF.adaptive_avg_pool2d(h, 1).flatten(1) + t.mean(1), dim=-1)


def test_more_layers_match_torch(tmp_path):
    torch.manual_seed(0)
    tep = torch.export.export(Mixed().eval(), (torch.randn(2, 3, 6, 6),),
                              dynamic_shapes=({0: torch.export.Dim("batch")},))
    torch.export.save(tep, tmp_path / "mixed.pt2")
    mod = torchlike.export.load(tmp_path / "mixed.pt2").module()
    for b in (1, 3):
        x = torch.randn(b, 3, 6, 6)
        with torch.no_grad(), torchlike.no_grad():
            np.testing.assert_allclose(mod(torchlike.tensor(x.numpy())).numpy(), tep.module()(x).numpy(),
                                       rtol=1e-4, atol=1e-5)


class Recurrent(tnn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = tnn.LSTM(4, 8, batch_first=True)
        self.gru = tnn.GRU(8, 6, num_layers=2, bidirectional=True, batch_first=True)

    def forward(self, x):
        h, (hn, cn) = self.lstm(x)
        out, g = self.gru(h)
        return out, hn + cn, g


@pytest.mark.filterwarnings("ignore:The tensor attributes:UserWarning")  # torch's export, on RNN flat weights
def test_recurrent_layers_match_torch(tmp_path):
    torch.manual_seed(0)
    tep = torch.export.export(Recurrent(), (torch.randn(2, 5, 4),), dynamic_shapes=({0: torch.export.Dim("b")},))
    torch.export.save(tep, tmp_path / "rnn.pt2")
    mod = torchlike.export.load(tmp_path / "rnn.pt2").module()
    x = torch.randn(3, 5, 4)
    with torch.no_grad(), torchlike.no_grad():
        ref, out = tep.module()(x), mod(torchlike.tensor(x.numpy()))
    assert isinstance(out, tuple) and len(out) == 3
    for o, r in zip(out, ref):
        np.testing.assert_allclose(o.numpy(), r.numpy(), rtol=1e-4, atol=1e-5)


class Tagger(tnn.Module):
    """Embedding, a lifted constant, a non-persistent buffer, reductions, a dict output."""

    def __init__(self):
        super().__init__()
        self.e = tnn.Embedding(10, 8)
        self.register_buffer("pos", torch.arange(4.0), persistent=False)
        self.c = torch.linspace(0.5, 2.0, 8)

    def forward(self, i, *, scale=2.0):
        h = self.e(i) * self.c + self.pos.sum() * scale
        return {"mean": h.mean(dim=1), "peak": torch.softmax(h, -1).amax(-1), "n": (h > 0).sum(-1)}


def test_constants_keywords_and_dict_outputs(tmp_path):
    torch.manual_seed(0)
    tep = torch.export.export(Tagger(), (torch.randint(0, 10, (2, 4)),), {"scale": 2.0},
                              dynamic_shapes={"i": {0: torch.export.Dim("batch")}, "scale": None})
    torch.export.save(tep, tmp_path / "tagger.pt2")
    ep = torchlike.export.load(tmp_path / "tagger.pt2")
    i = torch.randint(0, 10, (3, 4))
    ref, out = tep.module()(i, scale=2.0), ep.module()(torchlike.tensor(i.numpy()), scale=2.0)
    assert list(out) == list(ref)
    for k in ref:
        assert str(out[k].dtype) == str(ref[k].dtype) and out[k].requires_grad == ref[k].requires_grad
        np.testing.assert_allclose(out[k].detach().numpy(), ref[k].detach().numpy(), rtol=1e-5, atol=1e-6)
    assert list(ep.constants) == list(tep.constants)


class CastAndScalarState(tnn.Module):
    """A dtype cast (torch writes an output-less aten._assert_tensor_metadata node for it), a dict output and
    a 0-d buffer (num_batches_tracked is one too)."""

    def __init__(self):
        super().__init__()
        self.lin = tnn.Linear(4, 4)
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x, y):
        h = self.lin(x) * self.scale
        return {"sum": h + y, "idx": h.argmax(-1), "pair": (h.mean(), y.int())}


def test_output_less_nodes_zero_dim_state_and_keyword_mismatch(tmp_path):
    torch.manual_seed(0)
    b = torch.export.Dim("batch")
    tep = torch.export.export(CastAndScalarState(), (torch.randn(3, 4), torch.randn(3, 4)),
                              dynamic_shapes={"x": {0: b}, "y": {0: b}})
    torch.export.save(tep, tmp_path / "cast.pt2")
    ep = torchlike.export.load(tmp_path / "cast.pt2")
    x, y = torch.randn(5, 4), torch.randn(5, 4)
    ref, out = tep.module()(x, y), ep.module()(torchlike.tensor(x.numpy()), torchlike.tensor(y.numpy()))
    assert list(out) == list(ref)
    flat = [(out["sum"], ref["sum"]), (out["idx"], ref["idx"])] + list(zip(out["pair"], ref["pair"]))
    for o, r in flat:
        assert str(o.dtype) == str(r.dtype) and tuple(o.shape) == tuple(r.shape)
        assert o.requires_grad == r.requires_grad
        np.testing.assert_allclose(o.detach().numpy(), r.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert tuple(ep.state_dict["scale"].shape) == tuple(tep.state_dict["scale"].shape) == ()
    with pytest.raises(ValueError) as theirs:
        tep.module()(x, y, flag=True)
    with pytest.raises(ValueError) as ours:
        ep.module()(torchlike.tensor(x.numpy()), torchlike.tensor(y.numpy()), flag=True)
    assert str(ours.value) == str(theirs.value)


def test_batch_norm_buffer_shapes_match_torch(tmp_path):
    path, tep = _write(tmp_path, "cnn", train=True)
    mod, tmod = torchlike.export.load(path).module(), tep.module()
    x = torch.randn(4, 3, 8, 8)
    mod(torchlike.tensor(x.numpy())), tmod(x)
    for k, t in tmod.named_buffers():
        assert tuple(mod.get_buffer(k).shape) == tuple(t.shape), k
        assert mod.get_buffer(k).tolist() == pytest.approx(t.tolist(), rel=1e-5, abs=1e-6)


def test_unknown_aten_op_raises_not_implemented(tmp_path):
    class Odd(tnn.Module):
        def forward(self, x):
            return torch.cummax(x, 0).values

    torch.export.save(torch.export.export(Odd(), (torch.randn(3, 2),)), tmp_path / "odd.pt2")
    with pytest.raises(NotImplementedError, match=r"aten\.cummax\.default.*docs/differences\.md"):
        torchlike.export.load(tmp_path / "odd.pt2")


def test_loads_and_runs_in_a_process_where_torch_cannot_be_imported(tmp_path):
    path, tep = _write(tmp_path, "block")
    x = torch.randn(3, 5, 16)
    np.save(tmp_path / "x.npy", x.numpy())
    np.save(tmp_path / "ref.npy", tep.module()(x).detach().numpy())
    code = textwrap.dedent(f"""
        import sys
        sys.modules["torch"] = None  # any `import torch` now fails
        import numpy as np, torchlike
        ep = torchlike.export.load({str(path)!r})
        y = ep.module()(torchlike.tensor(np.load({str(tmp_path / 'x.npy')!r})))
        np.testing.assert_allclose(y.detach().numpy(), np.load({str(tmp_path / "ref.npy")!r}), rtol=1e-4, atol=1e-5)
        assert not any(k == "torch" or k.startswith("torch.") for k, v in sys.modules.items() if v is not None)
        print("ok", tuple(y.shape))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "ok (3, 5, 16)" in out.stdout


# ---------------------------------------------------------------- the aten table, op by op, against torch.ops.aten
def _r(*shape, lo=-1.0, hi=1.0, seed=[0]):
    seed[0] += 1
    g = torch.Generator().manual_seed(seed[0])
    return torch.rand(*shape, generator=g) * (hi - lo) + lo


def _i(hi, *shape):
    return torch.randint(0, hi, shape, generator=torch.Generator().manual_seed(hi))


A, B, P = _r(2, 3), _r(2, 3), _r(2, 3, lo=0.1)
X4, W4, BIAS = _r(2, 4, 6, 6), _r(6, 2, 3, 3), _r(6)
C4 = _r(4)
V4, M4 = _r(4, lo=0.5, hi=1.5), _r(4)
Q = _r(2, 2, 5, 4)
OP_CASES = [
    ("add.Tensor", (A, B), {"alpha": 2}), ("add.Scalar", (A, 2.5), {}), ("sub.Tensor", (A, B), {}),
    ("rsub.Scalar", (A, 1.0), {}), ("mul.Tensor", (A, B), {}), ("mul.Scalar", (A, 3), {}),
    ("div.Tensor", (A, P), {}), ("div.Tensor_mode", (A, P), {"rounding_mode": "floor"}),
    ("pow.Tensor_Scalar", (P, 2.5), {}), ("eq.Scalar", (A.round(), 0.0), {}), ("lt.Tensor", (A, B), {}),
    ("maximum.default", (A, B), {}), ("where.self", (A > 0, A, B), {}), ("clamp.default", (A, -0.5, 0.5), {}),
    ("clamp_min.default", (A, 0.1), {}), ("gelu.default", (A,), {"approximate": "tanh"}),
    ("silu.default", (A,), {}), ("hardtanh.default", (A, -0.3, 0.3), {}), ("leaky_relu.default", (A, 0.2), {}),
    ("elu.default", (A, 1.6732632423543772, 1.0507009873554805, 1.0), {}), ("softplus.default", (A, 2.0, 1.0), {}),
    ("masked_fill.Scalar", (A, A > 0, -1.0), {}), ("tril.default", (_r(3, 3), -1), {}),
    ("rsqrt.default", (P,), {}), ("logical_not.default", (A > 0,), {}), ("sigmoid.default", (A,), {}),
    ("mm.default", (A, _r(3, 4)), {}), ("bmm.default", (_r(2, 3, 4), _r(2, 4, 5)), {}),
    ("addmm.default", (C4, A, _r(3, 4)), {"beta": 0.5, "alpha": 2}), ("linear.default", (A, _r(4, 3), C4), {}),
    ("baddbmm.default", (_r(2, 3, 5), _r(2, 3, 4), _r(2, 4, 5)), {"alpha": 0.5}), ("t.default", (A,), {}),
    ("matmul.default", (_r(2, 3, 4), _r(4, 5)), {}),
    ("einsum.default", ("bij,bjk->bik", [_r(2, 3, 4), _r(2, 4, 5)]), {}),
    ("conv2d.default", (X4, W4, BIAS, [2, 1], [1, 0], [1, 2], 2), {}),
    ("conv2d.padding", (X4, W4, BIAS, [1, 1], "same", [1, 1], 2), {}),
    ("convolution.default", (X4, W4, BIAS, [1, 1], [1, 1], [1, 1], False, [0, 0], 2), {}),
    ("convolution.default", (X4, _r(4, 3, 3, 3), None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1), {}),
    ("conv_transpose2d.input", (X4, _r(4, 3, 3, 3), _r(3), [2, 2], [1, 1], [1, 1]), {}),
    ("batch_norm.default", (X4, C4, M4, M4, V4, False, 0.1, 1e-5, False), {}),
    ("_native_batch_norm_legit_no_training.default", (X4, C4, M4, M4, V4, 0.1, 1e-5), {}),
    ("_native_batch_norm_legit_functional.default", (X4, C4, M4, M4, V4, True, 0.1, 1e-5), {}),
    ("native_batch_norm.default", (X4, C4, M4, M4, V4, True, 0.1, 1e-5), {}),
    ("layer_norm.default", (X4, [6, 6], _r(6, 6), _r(6, 6)), {}),
    ("native_layer_norm.default", (X4, [6], _r(6), _r(6), 1e-5), {}),
    ("group_norm.default", (X4, 2, C4, M4), {}), ("native_group_norm.default", (X4, C4, M4, 2, 4, 36, 2, 1e-5), {}),
    ("softmax.int", (A, 1), {}), ("_softmax.default", (A, 0, False), {}), ("_log_softmax.default", (A, 1, False), {}),
    ("embedding.default", (_r(10, 3), _i(10, 2, 4)), {}), ("dropout.default", (A, 0.5, False), {}),
    ("scaled_dot_product_attention.default", (Q, _r(2, 2, 5, 4), _r(2, 2, 5, 4), _r(5, 5)), {"scale": 0.3}),
    ("max_pool2d.default", (X4, [3, 3], [], [1, 1], [1, 1], True), {}),
    ("max_pool2d_with_indices.default", (X4, [2, 2]), {}),
    ("avg_pool2d.default", (X4, [3, 3], [2, 2], [1, 1], False, False), {}),
    ("adaptive_avg_pool2d.default", (X4, [4, 3]), {}), ("avg_pool1d.default", (_r(2, 3, 8), [2]), {}),
    ("view.default", (A, [3, 2]), {}), ("permute.default", (X4, [0, 2, 3, 1]), {}),
    ("transpose.int", (X4, 1, -1), {}), ("unsqueeze.default", (A, -1), {}), ("squeeze.dim", (_r(2, 1, 3), 1), {}),
    ("squeeze.dims", (_r(1, 2, 1), [0, 2]), {}), ("flatten.using_ints", (X4, 1, 2), {}),
    ("unflatten.int", (X4, 1, [2, 2]), {}), ("expand.default", (_r(2, 1), [2, 3]), {}),
    ("clone.default", (A,), {}), ("select.int", (X4, 1, -1), {}), ("narrow.default", (X4, 2, 1, 3), {}),
    ("slice.Tensor", (X4, 1, 1, 9223372036854775807, 2), {}), ("slice.Tensor", (X4, 3, -4, -1), {}),
    ("cat.default", ([A, B], 1), {}), ("stack.default", ([A, B], -1), {}), ("split.Tensor", (X4, 4, 2), {}),
    ("split_with_sizes.default", (X4, [1, 3], 1), {}), ("chunk.default", (X4, 3, 2), {}),
    ("unbind.int", (A, 1), {}), ("index_select.default", (X4, 1, _i(4, 3)), {}),
    ("gather.default", (A, 1, _i(3, 2, 2)), {}), ("repeat.default", (A, [2, 1, 2]), {}),
    ("flip.default", (X4, [1, 3]), {}), ("roll.default", (X4, [1, -2], [1, 3]), {}),
    ("index.Tensor", (X4, [None, _i(4, 3)]), {}),
    ("sum.dim_IntList", (X4, [1, 2], True), {}), ("sum.default", (A,), {}), ("mean.dim", (X4, [-1]), {}),
    ("amax.default", (X4, []), {}), ("amax.default", (X4, [1, 3], True), {}), ("max.dim", (A, 1), {}),
    ("argmax.default", (A, 1), {}), ("var.correction", (X4, [2, 3]), {"correction": 0}),
    ("std.correction", (X4, [1]), {"keepdim": True}), ("any.dim", (A > 0.5, 1), {}), ("cumsum.default", (A, 1), {}),
    ("logsumexp.default", (X4, [2, 3]), {}), ("prod.dim_int", (A, 0), {}),
    ("full.default", ([2, 3], 1.5), {"dtype": torch.float64}), ("zeros.default", ([2, 3],), {}),
    ("arange.start_step", (1, 10, 3), {}), ("scalar_tensor.default", (-float("inf"),), {"dtype": torch.float32}),
    ("full_like.default", (A, 7), {}), ("ones_like.default", (A,), {"dtype": torch.int64}),
    ("_to_copy.default", (A,), {"dtype": torch.float16}),
    ("pad.default", (X4, [1, 2, 0, 1]), {"value": 0.5}), ("pad.default", (X4, [1, 1, 2, 2], "reflect"), {}),
    ("constant_pad_nd.default", (A, [1, 1]), {}), ("reflection_pad2d.default", (X4, [1, 1, 1, 1]), {}),
    ("upsample_nearest2d.vec", (X4, None, [2.0, 2.0]), {}),
    ("upsample_bilinear2d.vec", (X4, None, False, [2.0, 1.5]), {}),
    ("upsample_bilinear2d.default", (X4, [9, 5], True), {}), ("pixel_shuffle.default", (X4, 2), {}),
    ("linalg_vector_norm.default", (X4, 2, [1, 2], True), {}), ("topk.default", (X4, 3, 2, False), {}),
    ("sort.default", (A, 1, True), {}), ("std.dim", (X4, [1, 3]), {}), ("prelu.default", (X4, C4), {}),
    ("selu.default", (A,), {}), ("celu.default", (A, 0.5), {}), ("glu.default", (X4, 1), {}),
    ("expand_as.default", (_r(2, 1), A), {}),
]


def _tl(v):
    if isinstance(v, torch.Tensor):
        return torchlike.tensor(v.numpy())
    if isinstance(v, torch.dtype):
        return getattr(torchlike, str(v).split(".")[1])
    if isinstance(v, list):
        return [_tl(x) for x in v]
    return v


@pytest.mark.parametrize("op,args,kwargs", OP_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(OP_CASES)])
def test_aten_table_entry_matches_torch(op, args, kwargs):
    from torchlike.export._aten import lookup
    name, overload = op.split(".")
    ref = getattr(getattr(torch.ops.aten, name), overload)(*args, **kwargs)
    out = lookup(f"torch.ops.aten.{op}")(*[_tl(a) for a in args], **{k: _tl(v) for k, v in kwargs.items()})
    refs, outs = (ref, out) if isinstance(ref, (tuple, list)) else ((ref,), (out,))
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs):
        assert str(o.dtype) == str(r.dtype) and tuple(o.shape) == tuple(r.shape), (o.dtype, r.dtype, o.shape, r.shape)
        np.testing.assert_allclose(o.numpy().astype(np.float64), r.numpy().astype(np.float64), rtol=1e-4, atol=1e-5)
