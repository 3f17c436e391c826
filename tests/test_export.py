"""torchlike.export: run, print StableHLO, serialize, and reload in a fresh process without model code."""
import subprocess
import sys
import textwrap

import numpy as np

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
    assert list(ep.state_dict()) == list(m.state_dict())


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
