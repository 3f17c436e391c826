"""torchlike.export: run, print StableHLO, serialize, and reload in a fresh process without model code."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import torchlike
import torchlike.nn as nn


def _model():
    torchlike.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                         nn.Linear(4 * 8 * 8, 5)).eval()


def test_export_runs_with_symbolic_batch_and_prints_stablehlo():
    m = _model()
    ep = torchlike.export.export(m, (torchlike.randn(2, 3, 8, 8),), dynamic_shapes={"input": {0: "batch"}})
    for b in (1, 5):
        x = torchlike.randn(b, 3, 8, 8)
        np.testing.assert_allclose(ep(x).numpy(), m(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    text = str(ep)
    assert "stablehlo" in text and "batch" in repr(ep)
    # torch's ExportedProgram.state_dict: the parameters, then the buffers
    assert list(ep.state_dict()) == [n for n, _ in m.named_parameters()] + [n for n, _ in m.named_buffers()]


def test_state_dict_can_be_passed_in():
    m = _model()
    ep = torchlike.export.export(m, (torchlike.randn(2, 3, 8, 8),))
    other = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                          nn.Linear(4 * 8 * 8, 5)).eval()
    x = torchlike.randn(2, 3, 8, 8)
    np.testing.assert_allclose(ep(x, state_dict=other.state_dict()).numpy(), other(x).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_roundtrip_in_a_fresh_process_without_model_code(tmp_path):
    m = _model()
    ep = torchlike.export.export(m, (torchlike.randn(2, 3, 8, 8),), dynamic_shapes={"input": {0: "batch"}})
    path = tmp_path / "model.tlx"
    torchlike.export.save(ep, path)
    x = np.random.default_rng(0).standard_normal((3, 3, 8, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "ref.npy", m(torchlike.tensor(x)).detach().numpy())
    code = textwrap.dedent(f"""
        import numpy as np, torchlike
        ep = torchlike.export.load({str(path)!r})
        y = ep(torchlike.tensor(np.load({str(tmp_path / 'x.npy')!r})))
        np.testing.assert_allclose(y.numpy(), np.load({str(tmp_path / 'ref.npy')!r}), rtol=1e-5, atol=1e-6)
        print("ok", tuple(y.shape))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "ok (3, 5)" in out.stdout


def _scaled(lib):
    class Scaled(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(3, 2)
            self.register_buffer("scale", lib.tensor(2.0))
            self.register_buffer("shift", lib.ones(2), persistent=False)

        def forward(self, x):
            return self.lin(x) * self.scale + self.shift
    return Scaled()


def test_module_is_torchs_unlifted_graph_module_with_dim_auto(tmp_path):
    """ExportedProgram.module() (mlflow's pt2 models load through it): a Module with the exported module's
    parameters and buffers (non-persistent ones too) under their names, a dynamic Dim.AUTO batch, backward,
    train()/eval() raising and torch's guard on a static size — each as torch's, also after save/load."""
    import torch
    from torch.export import Dim as TDim

    tm, m = _scaled(torch), _scaled(torchlike)
    m.load_state_dict({k: torchlike.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    tmod = torch.export.export(tm, (torch.randn(2, 3),), dynamic_shapes=({0: TDim.AUTO},)).module()
    ep = torchlike.export.export(m, (torchlike.randn(2, 3),), dynamic_shapes=({0: torchlike.export.Dim.AUTO},))
    torchlike.export.save(ep, tmp_path / "m.pt2")
    for mod in (ep.module(), torchlike.export.load(tmp_path / "m.pt2").module()):
        assert type(mod).__name__ == type(tmod).__name__ == "GraphModule"
        assert list(mod.state_dict()) == list(tmod.state_dict())
        assert [n for n, _ in mod.named_parameters()] == [n for n, _ in tmod.named_parameters()]
        assert [n for n, _ in mod.named_buffers()] == [n for n, _ in tmod.named_buffers()]
        assert [p.requires_grad for p in mod.parameters()] == [p.requires_grad for p in tmod.parameters()]
        ty, y = tmod(torch.tensor(x)), mod(torchlike.tensor(x))
        # XLA's and torch's CPU matmuls may round a float32 element differently (one ulp)
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-6, atol=1e-6)
        ty.sum().backward()
        y.sum().backward()
        np.testing.assert_allclose(mod.lin.weight.grad.numpy(), tmod.lin.weight.grad.numpy(), rtol=1e-6, atol=1e-6)
        tmod.zero_grad()
        for call in ("train", "eval"):
            with pytest.raises(NotImplementedError) as te:
                getattr(tmod, call)()
            with pytest.raises(NotImplementedError) as e:
                getattr(mod, call)()
            assert str(e.value) == str(te.value)
    # a size-1 example dim under Dim.AUTO is specialized (torch's 0/1 specialization), and guarded
    tmod = torch.export.export(tm, (torch.randn(1, 3),), dynamic_shapes=({0: TDim.AUTO},)).module()
    mod = torchlike.export.export(m, (torchlike.randn(1, 3),),
                                  dynamic_shapes=({0: torchlike.export.Dim.AUTO},)).module()
    with pytest.raises(AssertionError) as te:
        tmod(torch.randn(4, 3))
    with pytest.raises(AssertionError) as e:
        mod(torchlike.randn(4, 3))
    assert str(e.value) == str(te.value) == "Guard failed: x.size()[0] == 1"
    assert repr(torchlike.export.Dim.AUTO(min=2)) == repr(TDim.AUTO(min=2))


def _sig_module(lib):
    class Sub(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(3, 3)

        def forward(self, x):
            return self.fc(x).relu()

    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.sub = Sub()
            self.register_buffer("b", lib.ones(3))
            self.register_buffer("np", lib.ones(3), persistent=False)

        def forward(self, x, y):
            return self.sub(x + y) + self.b + self.np

    return M()


def test_signature_ranges_state_dict_decompositions_and_unflatten_like_torch():
    from conftest import torch
    tm, lm = _sig_module(torch), _sig_module(torchlike)
    lm.load_state_dict({k: torchlike.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    eps = []
    for lib, m in ((torch, tm), (torchlike, lm)):
        batch = lib.export.Dim("batch", min=2, max=64)
        eps.append(lib.export.export(m, (lib.tensor(x), lib.tensor(x)),
                                     dynamic_shapes={"x": {0: batch}, "y": {0: batch}}))
    tep, lep = eps
    for name in ("user_inputs", "parameters", "buffers", "non_persistent_buffers", "inputs_to_parameters",
                 "inputs_to_buffers", "lifted_tensor_constants"):
        assert getattr(lep.graph_signature, name) == getattr(tep.graph_signature, name), name
    assert len(lep.graph_signature.user_outputs) == len(tep.graph_signature.user_outputs)
    assert sorted(map(str, lep.range_constraints.values())) == sorted(map(str, tep.range_constraints.values()))
    assert list(lep.state_dict) == list(tep.state_dict) and list(lep.state_dict()) == list(tep.state_dict)
    xs = np.random.default_rng(1).standard_normal((6, 3)).astype(np.float32)
    want = tep.run_decompositions().module()(torch.tensor(xs), torch.tensor(xs)).detach().numpy()
    got = lep.run_decompositions().module()(torchlike.tensor(xs), torchlike.tensor(xs)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    tu, lu = torch.export.unflatten(tep), torchlike.export.unflatten(lep)
    np.testing.assert_allclose(lu.sub(torchlike.tensor(xs)).detach().numpy(),
                               tu.sub(torch.tensor(xs)).detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(lu(torchlike.tensor(xs), torchlike.tensor(xs)).detach().numpy(), want,
                               rtol=1e-6, atol=1e-6)
