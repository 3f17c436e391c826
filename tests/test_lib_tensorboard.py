"""torch.utils.tensorboard.SummaryWriter (scalars from training steps, add_scalars, histograms, images, text,
hparams, PR curves, embeddings, tensors, audio, meshes, boxes, custom scalars) under the drop-in runner, read back
with tensorboard's EventAccumulator and compared line by line with the same program under real torch; the
summary protocol buffers compared byte for byte with torch's; add_graph's error (no TorchScript tracer)."""
import subprocess
import sys

import numpy as np
import pytest
from conftest import lib_program_vs_torch

pytest.importorskip("tensorboard")


def test_tensorboard_writer_events_read_back_like_torch():
    _, ours = lib_program_vs_torch("lib_tensorboard.py", "torch", "tensorboard", timeout=600, rtol=1e-4)
    assert len(ours) == 57, ours
    assert ours[0] == "log_dir run FileWriter" and ours[1] == "suffix [True]"
    assert "scalars train/loss [(0, 2.3592), (1, 2.1762), (2, 2.0383), (3, 1.9131)]" in ours
    assert "add_scalars w2 [(0, 0.7948), (1, 0.6507), (2, 0.6208), (3, 0.6626)]" in ours
    hist = [line for line in ours if line.startswith("histogram weights/0 1 ")]
    assert hist and hist[0].split()[8] == "579", hist  # the "tensorflow" default buckets, trimmed
    assert "png RGB (8, 10, 3) [0, 1, 2, 3] [252, 253, 255]" in ours
    assert "hparams [('bs', 16.0), ('lr', 0.1), ('nest', 1.0), ('opt', 'sgd'), ('t', 0.5)]" in ours
    assert "tensor tensor/half 19 [1056964608, -1080033280]" in ours
    assert sum(line.startswith("embedding 0000") for line in ours) == 2


def _summaries(torch_mod):
    """The same summaries built by ``torch_mod``'s tensorboard.summary (torch's or torchlike's)."""
    s = torch_mod.utils.tensorboard.summary
    g = np.random.default_rng(0)
    vals = g.standard_normal(300).astype(np.float32)
    t = torch_mod.tensor
    out = [
        s.scalar("a", t(1.5)), s.scalar("b", t([2.0], dtype=torch_mod.float64), new_style=True,
                                        double_precision=True),
        s.histogram("h", t(vals), "fd"), s.histogram("h2", t(vals).to(torch_mod.float16), 30, max_bins=7),
        s.image("i", t(g.random((2, 3, 5, 4)).astype(np.float32)), dataformats="NCHW"),
        s.image("j", t((g.random((6, 5)) * 255).astype(np.uint8)), dataformats="HW", rescale=2),
        s.text("x", "hello *there*"),
        s.pr_curve("p", np.array([0, 1, 1, 0, 1]), np.array([0.1, 0.8, 0.6, 0.3, 0.9]), num_thresholds=9),
        s.custom_scalars({"c": {"m": ["Margin", ["a", "b", "c"]], "l": ["Multiline", ["a"]]}}),
        s.audio("snd", t(np.sin(np.linspace(0, 3, 50)).astype(np.float32))),
        s.mesh("m", t([[[0.0, 1, 2]]]), None, t([[[0, 0, 0]]]), {"camera": {"fov": 75}}),
        *s.hparams({"lr": 0.1, "n": 3, "s": "x", "b": False, "t": t([2.5])}, {"m": 1.0},
                   {"s": ["x", "y"], "n": [3, 4]}),
    ]
    for dtype in ("float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64",
                  "bool", "complex64", "complex128"):
        out.append(s.tensor_proto(dtype, t([[1, 0], [2, 3]]).to(getattr(torch_mod, dtype))))
    return out


def test_summary_protos_are_torchs_byte_for_byte(tmp_path):
    pytest.importorskip("torch")
    import torch
    import torch.utils.tensorboard  # noqa: F401
    import torchlike
    import torchlike.utils.tensorboard  # noqa: F401
    theirs, ours = _summaries(torch), _summaries(torchlike)
    assert len(ours) == len(theirs) == 26
    for a, b in zip(theirs, ours):
        assert a.SerializeToString() == b.SerializeToString(), (a, b)
    writers = [m.utils.tensorboard.SummaryWriter(str(tmp_path / name)) for m, name in ((torch, "t"), (torchlike, "o"))]
    assert writers[0].default_bins == writers[1].default_bins  # add_histogram's "tensorflow" buckets
    for w in writers:
        w.close()


_ADD_GRAPH = """
import tempfile
import torch
from torch.utils.tensorboard import SummaryWriter
w = SummaryWriter(tempfile.mkdtemp())
try:
    w.add_graph(torch.nn.Linear(2, 2), torch.randn(1, 2))
except NotImplementedError as e:
    print(type(e).__name__, "TorchScript" in str(e), "add_graph" in str(e))
w.close()
"""


def test_add_graph_names_the_missing_torchscript_tracer_under_the_runner():
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", "-c", _ADD_GRAPH], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines() == ["Error occurs, No graph saved", "NotImplementedError True True"]
