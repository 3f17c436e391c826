"""Whole nn modules survive torch.save/torch.load in every direction: torchlike->torchlike,
torch->torchlike and torchlike->torch, with ``weights_only`` plus ``safe_globals`` (the
word_language_model idiom) and with ``weights_only=False``.

Every module class torchlike.nn exports is covered (a constructor-argument table below; a class
missing from it fails the test).  A loaded module must have the state of the saved one, the repr
of a freshly built module of its library, every instance attribute that library's own instance
has (so its forward works), and the same forward output on a few common layers.
"""
import importlib
import inspect
import io

import numpy as np
import pytest
import torch

import torchlike


def _args(nn):
    """class name -> (args, kwargs) builder; ``nn`` is torch.nn or torchlike.nn."""
    lin = lambda: nn.Linear(2, 3)  # noqa: E731
    enc = lambda: nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)  # noqa: E731
    dec = lambda: nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0)  # noqa: E731
    return {
        "AdaptiveAvgPool1d": lambda: ((2,), {}), "AdaptiveAvgPool2d": lambda: ((2,), {}),
        "AdaptiveAvgPool3d": lambda: ((2,), {}), "AdaptiveMaxPool1d": lambda: ((2,), {}),
        "AdaptiveMaxPool2d": lambda: ((2,), {}), "AdaptiveMaxPool3d": lambda: ((2,), {}),
        "AdaptiveLogSoftmaxWithLoss": lambda: ((8, 10, [4]), {}),
        "AvgPool1d": lambda: ((2,), {}), "AvgPool2d": lambda: ((2,), {}), "AvgPool3d": lambda: ((2,), {}),
        "BatchNorm1d": lambda: ((3,), {}), "BatchNorm2d": lambda: ((3,), {}), "BatchNorm3d": lambda: ((3,), {}),
        "SyncBatchNorm": lambda: ((3,), {}),
        "Bilinear": lambda: ((2, 3, 4), {}), "ChannelShuffle": lambda: ((2,), {}),
        "CircularPad1d": lambda: ((1,), {}), "CircularPad2d": lambda: ((1,), {}), "CircularPad3d": lambda: ((1,), {}),
        "ConstantPad1d": lambda: ((1, 0.5), {}), "ConstantPad2d": lambda: ((1, 0.5), {}),
        "ConstantPad3d": lambda: ((1, 0.5), {}),
        "Container": lambda: ((), {"a": lin()}),
        "Conv1d": lambda: ((2, 3, 3), {}), "Conv2d": lambda: ((2, 3, 3), {"padding": 1}),
        "Conv3d": lambda: ((2, 3, 3), {}), "ConvTranspose1d": lambda: ((2, 3, 3), {}),
        "ConvTranspose2d": lambda: ((2, 3, 3), {}), "ConvTranspose3d": lambda: ((2, 3, 3), {}),
        "CosineSimilarity": lambda: ((), {}), "CrossMapLRN2d": lambda: ((3,), {}),
        "Embedding": lambda: ((5, 3), {"padding_idx": 0}), "EmbeddingBag": lambda: ((5, 3), {}),
        "Flatten": lambda: ((), {}), "Fold": lambda: ((), {"output_size": (4, 4), "kernel_size": 2}),
        "FractionalMaxPool2d": lambda: ((2,), {"output_size": 2}),
        "FractionalMaxPool3d": lambda: ((2,), {"output_size": 2}),
        "GRU": lambda: ((3, 4), {}), "GRUCell": lambda: ((3, 4), {}), "GroupNorm": lambda: ((2, 4), {}),
        "InstanceNorm1d": lambda: ((3,), {}), "InstanceNorm2d": lambda: ((3,), {}),
        "InstanceNorm3d": lambda: ((3,), {"affine": True}),
        "LPPool1d": lambda: ((2, 2), {}), "LPPool2d": lambda: ((2, 2), {}), "LPPool3d": lambda: ((2, 2), {}),
        "LSTM": lambda: ((3, 4), {"num_layers": 2}), "LSTMCell": lambda: ((3, 4), {}),
        "LayerNorm": lambda: ((4,), {}), "RMSNorm": lambda: ((4,), {}),
        "LazyBatchNorm1d": lambda: ((), {}), "LazyBatchNorm2d": lambda: ((), {}), "LazyBatchNorm3d": lambda: ((), {}),
        "LazyInstanceNorm1d": lambda: ((), {}), "LazyInstanceNorm2d": lambda: ((), {}),
        "LazyInstanceNorm3d": lambda: ((), {}),
        "LazyConv1d": lambda: ((3, 2), {}), "LazyConv2d": lambda: ((3, 2), {}), "LazyConv3d": lambda: ((3, 2), {}),
        "LazyConvTranspose1d": lambda: ((3, 2), {}), "LazyConvTranspose2d": lambda: ((3, 2), {}),
        "LazyConvTranspose3d": lambda: ((3, 2), {}), "LazyLinear": lambda: ((3,), {}),
        "Linear": lambda: ((2, 3), {}), "LinearCrossEntropyLoss": lambda: ((4, 5), {}),
        "LocalResponseNorm": lambda: ((2,), {}),
        "MaxPool1d": lambda: ((2,), {}), "MaxPool2d": lambda: ((2,), {}), "MaxPool3d": lambda: ((2,), {}),
        "MaxUnpool1d": lambda: ((2,), {}), "MaxUnpool2d": lambda: ((2,), {}), "MaxUnpool3d": lambda: ((2,), {}),
        "ModuleDict": lambda: (({"a": lin()},), {}), "ModuleList": lambda: (([lin(), nn.ReLU()],), {}),
        "MultiheadAttention": lambda: ((4, 2), {}),
        "PReLU": lambda: ((), {}), "PairwiseDistance": lambda: ((), {}),
        "ParameterDict": lambda: (({"a": nn.Parameter(torch_like(nn).ones(2))},), {}),
        "ParameterList": lambda: (([nn.Parameter(torch_like(nn).ones(2))],), {}),
        "PixelShuffle": lambda: ((2,), {}), "PixelUnshuffle": lambda: ((2,), {}),
        "RNN": lambda: ((3, 4), {"nonlinearity": "relu"}), "RNNBase": lambda: (("LSTM", 3, 4), {}),
        "RNNCell": lambda: ((3, 4), {}), "RNNCellBase": lambda: ((3, 4, True, 2), {}),
        "ReflectionPad1d": lambda: ((1,), {}), "ReflectionPad2d": lambda: ((1,), {}),
        "ReflectionPad3d": lambda: ((1,), {}), "ReplicationPad1d": lambda: ((1,), {}),
        "ReplicationPad2d": lambda: ((1,), {}), "ReplicationPad3d": lambda: ((1,), {}),
        "Sequential": lambda: ((lin(), nn.ReLU()), {}), "Softmax": lambda: ((), {"dim": 1}),
        "Softmin": lambda: ((), {"dim": 1}), "LogSoftmax": lambda: ((), {"dim": 1}),
        "Threshold": lambda: ((0.1, 20.0), {}),
        "Transformer": lambda: ((), {"d_model": 4, "nhead": 2, "num_encoder_layers": 1, "num_decoder_layers": 1,
                                     "dim_feedforward": 8, "dropout": 0.0}),
        "TransformerEncoder": lambda: ((enc(), 2), {"enable_nested_tensor": False}),
        "TransformerDecoder": lambda: ((dec(), 1), {}),
        "TransformerEncoderLayer": lambda: ((4, 2, 8), {"dropout": 0.0}),
        "TransformerDecoderLayer": lambda: ((4, 2, 8), {"dropout": 0.0}),
        "Unflatten": lambda: ((1, (2, 2)), {}), "Unfold": lambda: ((2,), {}),
        "Upsample": lambda: ((), {"scale_factor": 2}), "UpsamplingBilinear2d": lambda: ((), {"scale_factor": 2}),
        "UpsamplingNearest2d": lambda: ((), {"scale_factor": 2}),
        "ZeroPad1d": lambda: ((1,), {}), "ZeroPad2d": lambda: ((1,), {}), "ZeroPad3d": lambda: ((1,), {}),
    }


def torch_like(nn):
    return torch if nn is torch.nn else torchlike


# DataParallel belongs to nn.parallel (built by the distributed work, not here); Module/Container-like
# classes with no arguments need no entry. JaxModule (nn.from_jax) is torchlike's own, with no torch class to
# round-trip against.
EXCLUDED = {"DataParallel", "JaxModule"}


def _module_classes():
    return sorted(n for n, o in vars(torchlike.nn).items()
                  if inspect.isclass(o) and issubclass(o, torchlike.nn.Module) and n not in EXCLUDED)


def _build(nn, name):
    table = _args(nn)
    args, kwargs = table[name]() if name in table else ((), {})
    return getattr(nn, name)(*args, **kwargs)


def _resolve(lib, full):
    """``torch.a.b.C`` -> the object at that path in ``lib`` (torch or torchlike)."""
    module, _, attr = full.rpartition(".")
    if lib is torchlike and (module == "torch" or module.startswith("torch.")):
        module = "torchlike" + module[len("torch"):]
    return getattr(importlib.import_module(module), attr)


def _save(lib, obj):
    buf = io.BytesIO()
    lib.save(obj, buf)
    return buf.getvalue()


def _load(lib, data, weights_only):
    if not weights_only:
        return lib.load(io.BytesIO(data), weights_only=False)
    unsafe = lib.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))
    with lib.serialization.safe_globals([_resolve(lib, g) for g in unsafe]):
        return lib.load(io.BytesIO(data))


def _np(t):
    return np.asarray(t.detach().cpu().float().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy(),
                      dtype=np.float64)


def _check_loaded(loaded, src, lib, name):
    """``loaded`` (an instance of ``lib``'s class) carries ``src``'s state, repr and attributes."""
    nn = lib.nn
    assert type(loaded) is getattr(nn, name), (type(loaded), name)
    fresh = _build(nn, name)
    assert repr(loaded) == repr(fresh)
    assert not (set(vars(fresh)) - set(vars(loaded))), f"{name}: missing {set(vars(fresh)) - set(vars(loaded))}"
    sd_l, sd_s = loaded.state_dict(), src.state_dict()
    assert list(sd_l) == list(sd_s)
    for k in sd_l:
        if type(sd_s[k]).__name__.startswith("Uninitialized"):
            continue
        np.testing.assert_array_equal(_np(sd_l[k]), _np(sd_s[k]), err_msg=f"{name}.{k}")
    assert loaded.training == src.training


@pytest.mark.parametrize("weights_only", [True, False], ids=["safe_globals", "weights_only_False"])
@pytest.mark.parametrize("name", _module_classes())
def test_whole_module_roundtrip(name, weights_only):
    ours, theirs = _build(torchlike.nn, name), _build(torch.nn, name)
    ours.eval()
    # the globals a weights-only load would refuse are torch's for either writer
    data_ours, data_theirs = _save(torchlike, ours), _save(torch, theirs)
    assert sorted(torchlike.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data_ours))) == \
        sorted(torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data_theirs)))
    _check_loaded(_load(torchlike, data_ours, weights_only), ours, torchlike, name)   # torchlike -> torchlike
    _check_loaded(_load(torch, data_ours, weights_only), ours, torch, name)           # torchlike -> torch
    _check_loaded(_load(torchlike, data_theirs, weights_only), theirs, torchlike, name)  # torch -> torchlike


def test_all_module_classes_have_constructor_args():
    needs_args = [n for n in _module_classes()
                  if n not in _args(torchlike.nn) and
                  any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                      for p in list(inspect.signature(getattr(torch.nn, n).__init__).parameters.values())[1:])]
    assert needs_args == []


_FORWARD = {"Linear": (2, 2), "Conv2d": (1, 2, 5, 5), "LSTM": (2, 1, 3), "GRU": (2, 1, 3), "Embedding": None,
            "LayerNorm": (2, 4), "BatchNorm1d": (4, 3), "TransformerEncoderLayer": (3, 1, 4),
            "MultiheadAttention": (3, 1, 4), "Sequential": (2, 2), "Bilinear": None}


@pytest.mark.parametrize("name", sorted(_FORWARD))
def test_module_saved_by_one_library_computes_the_same_in_the_other(name):
    for src_lib, dst_lib in ((torchlike, torch), (torch, torchlike)):
        src = _build(src_lib.nn, name).eval()
        dst = _load(dst_lib, _save(src_lib, src), weights_only=True).eval()
        shape = _FORWARD[name]
        rng = np.random.default_rng(0)
        if name == "Embedding":
            xs = [np.array([[1, 2, 0]])]
        elif name == "Bilinear":
            xs = [rng.standard_normal((2, 2)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)]
        elif name == "MultiheadAttention":
            xs = [rng.standard_normal(shape).astype(np.float32)] * 3
        else:
            xs = [rng.standard_normal(shape).astype(np.float32)]
        outs = []
        for lib, mod in ((src_lib, src), (dst_lib, dst)):
            with lib.no_grad():
                out = mod(*[lib.tensor(x) for x in xs])
            outs.append(out[0] if isinstance(out, tuple) else out)
        np.testing.assert_allclose(_np(outs[0]), _np(outs[1]), rtol=1e-5, atol=1e-5, err_msg=name)


_RUNNER_SCRIPT = '''
import torch
import torch.nn.functional as F
allowed = [torch.nn.Sequential, torch.nn.Embedding, torch.nn.TransformerEncoder, torch.nn.TransformerEncoderLayer,
           torch.nn.modules.activation.MultiheadAttention, torch.nn.modules.linear.NonDynamicallyQuantizableLinear,
           torch.nn.Linear, torch.nn.LayerNorm, torch.nn.Dropout, torch.nn.ModuleList, F.relu]
with torch.serialization.safe_globals(allowed):
    m = torch.load("model.pt")
print(m.eval()(torch.tensor([[1, 2, 3]]))[0, 0, :3].tolist())
torch.save(m, "model2.pt")
'''


def test_word_language_model_idiom_under_the_runner(tmp_path):
    """A script saves/loads a whole model inside safe_globals naming torch's paths, run unchanged."""
    import subprocess
    import sys
    m = torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0), 1, enable_nested_tensor=False),
        torch.nn.Linear(4, 10)).eval()
    torch.save(m, tmp_path / "model.pt")
    (tmp_path / "script.py").write_text(_RUNNER_SCRIPT)
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", "script.py"], capture_output=True, text=True,
                         timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    expected = m(torch.tensor([[1, 2, 3]]))[0, 0, :3]
    np.testing.assert_allclose(eval(out.stdout.strip().splitlines()[-1]), expected.tolist(), rtol=1e-5, atol=1e-6)
    back = torch.load(tmp_path / "model2.pt", weights_only=False).eval()  # written by torchlike, read by torch
    np.testing.assert_allclose(back(torch.tensor([[1, 2, 3]]))[0, 0, :3].tolist(), expected.tolist(), rtol=1e-5,
                               atol=1e-6)
