"""Regressions found by running Opacus (tests/programs/lib_opacus_dp.py) through the drop-in runner, each checked
against real torch: import paths and typing aliases libraries reach for, generic data classes."""
import importlib

import pytest

torch = pytest.importorskip("torch")

import torchlike  # noqa: E402

DATA_CLASSES = ["DataLoader", "Dataset", "IterableDataset", "Sampler", "Subset", "ConcatDataset", "StackDataset",
                "DistributedSampler", "TensorDataset", "BatchSampler", "RandomSampler", "SequentialSampler"]


def _subscript(lib, name):
    try:
        getattr(lib.utils.data, name)[int]
        return "ok"
    except TypeError:
        return "TypeError"


@pytest.mark.parametrize("name", DATA_CLASSES)
def test_data_classes_are_generic_where_torchs_are(name):
    """``DataLoader[int]``, ``Subset[int]``, ... subscript as in torch (annotations evaluated at import time);
    TensorDataset and the int samplers are not generic in torch either."""
    assert _subscript(torchlike, name) == _subscript(torch, name)


@pytest.mark.parametrize("module, names", [
    ("utils.data.dataloader", ["_T", "_T_co", "_collate_fn_t", "_worker_init_fn_t"]),
    ("utils.data.dataset", ["_T", "_T_co", "_T_dict", "_T_tuple", "_T_stack"]),
    ("utils.data.distributed", ["_T_co"]),
])
def test_data_typing_aliases_exist(module, names):
    """opacus does ``from torch.utils.data.dataloader import _collate_fn_t``."""
    ours = importlib.import_module("torchlike." + module)
    theirs = importlib.import_module("torch." + module)
    for n in names:
        assert type(getattr(ours, n)) is type(getattr(theirs, n)), n


def test_distributed_old_tensor_path_aliases_the_new_one():
    """``torch.distributed._tensor`` (and its ``experimental``/``device_mesh``) are the modules of
    ``torch.distributed.tensor``; opacus imports ``implicit_replication`` from the old path."""
    for lib in (torch, torchlike):
        old = importlib.import_module(lib.__name__ + ".distributed._tensor")
        new = importlib.import_module(lib.__name__ + ".distributed.tensor")
        exp = importlib.import_module(lib.__name__ + ".distributed._tensor.experimental")
        assert old.DTensor is new.DTensor and old.Shard is new.Shard
        assert exp is importlib.import_module(lib.__name__ + ".distributed.tensor.experimental")
        with exp.implicit_replication():
            pass


def _picky(lib):
    seen = []

    class Picky(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(getattr(func, "__name__", str(func)))
            raise RuntimeError("picky")
    return Picky, seen


@pytest.mark.parametrize("lib", [torch, torchlike], ids=["torch", "torchlike"])
def test_make_subclass_and_function_apply_bypass_torch_function(lib):
    """``Tensor._make_subclass(cls, t, True)`` and ``autograd.Function.apply`` read and set tensor state as
    torch's C++ does, without calling the subclass's ``__torch_function__`` (ExpandedWeight raises from it)."""
    Picky, seen = _picky(lib)

    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None

    w = lib.Tensor._make_subclass(Picky, lib.ones(2), True)
    x = lib.ones(2, requires_grad=True)
    y = Double.apply(x, w)
    y.sum().backward()
    assert seen == [] and type(w) is Picky and type(y) is lib.Tensor
    assert x.grad.tolist() == [2.0, 2.0]


def test_make_subclass_integer_requires_grad_error_like_torch():
    def err(lib):
        with pytest.raises(RuntimeError) as e:
            lib.Tensor._make_subclass(lib.Tensor, lib.ones(2, dtype=lib.long), True)
        return str(e.value)
    assert err(torchlike) == err(torch)


def _models(lib):
    nn = lib.nn
    return {
        "linear3d": (lambda: nn.Sequential(nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 2)), (6, 3, 5), "float"),
        "conv1d": (lambda: nn.Sequential(nn.Conv1d(2, 3, 3, padding=1), nn.GroupNorm(1, 3)), (6, 2, 7), "float"),
        "conv2d_gn": (lambda: nn.Sequential(nn.Conv2d(1, 4, 3, stride=2), nn.GroupNorm(2, 4), nn.ReLU(),
                                            nn.Flatten(), nn.Linear(64, 3)),
                      (6, 1, 9, 9), "float"),
        "embedding_ln": (lambda: nn.Sequential(nn.Embedding(10, 4, padding_idx=0), nn.LayerNorm(4)), (6, 5), "long"),
        "instance_norm": (lambda: nn.Sequential(nn.Conv2d(2, 3, 1), nn.InstanceNorm2d(3, affine=True,
                                                                                   track_running_stats=True)),
                          (6, 2, 4, 4), "float"),
        "conv3d": (lambda: nn.Conv3d(1, 2, 2), (6, 1, 3, 3, 3), "float"),
    }


@pytest.mark.parametrize("name", list(_models(torch)))
@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_call_for_per_sample_grads_matches_torch(name, reduction):
    """``torch.nn.utils._per_sample_grad.call_for_per_sample_grads`` (Opacus' ``grad_sample_mode="ew"``):
    ``grad_sample`` of every parameter equals torch's ExpandedWeights result, ``.grad`` stays None, the
    output and running statistics are torch's."""
    import numpy as np
    rng = np.random.default_rng(0)
    shape, kind = _models(torch)[name][1:]
    x = rng.integers(0, 10, shape) if kind == "long" else rng.standard_normal(shape).astype(np.float32)
    results = []
    for lib in (torch, torchlike):
        from importlib import import_module
        psg = import_module(lib.__name__ + ".nn.utils._per_sample_grad")
        lib.manual_seed(0)
        m = _models(lib)[name][0]()
        out = psg.call_for_per_sample_grads(m, loss_reduction=reduction)(lib.tensor(x))
        (out.mean() if reduction == "mean" else out.sum()).backward()
        results.append((out.detach().numpy(), [(n, p.grad, p.grad_sample.detach().numpy())
                                               for n, p in m.named_parameters()],
                        [b.numpy() for b in m.buffers() if b.is_floating_point()]))
    (ot, pt, bt), (ol, pl, bl) = results
    np.testing.assert_allclose(ol, ot, rtol=1e-5, atol=1e-6)
    for (n, gt, st), (_, gl, sl) in zip(pt, pl):
        assert gt is None and gl is None, n
        np.testing.assert_allclose(sl, st, rtol=1e-4, atol=1e-5, err_msg=n)
    for a, b in zip(bl, bt):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["unhandled_op", "batch_norm", "no_requires_grad", "bad_reduction",
                                  "grad_sample_left", "batch_mismatch"])
def test_expanded_weights_errors_like_torch(case):
    from importlib import import_module

    def run(lib):
        psg = import_module(lib.__name__ + ".nn.utils._per_sample_grad")
        ew = import_module(lib.__name__ + ".nn.utils._expanded_weights.expanded_weights_impl")
        p = lib.nn.Parameter(lib.ones(3, 2))
        lin = lib.nn.Linear(2, 3)
        if case == "unhandled_op":
            return ew.ExpandedWeight(p, 4, "sum") + 1
        if case == "batch_norm":
            return psg.call_for_per_sample_grads(lib.nn.BatchNorm1d(2))(lib.ones(4, 2))
        if case == "no_requires_grad":
            return ew.ExpandedWeight(lib.ones(2), 4, "sum")
        if case == "bad_reduction":
            return psg.call_for_per_sample_grads(lin, loss_reduction="max")
        if case == "grad_sample_left":
            lin.weight.grad_sample = lib.ones(1)
            return psg.call_for_per_sample_grads(lin)
        return psg.call_for_per_sample_grads(lin, batch_size=3)(lib.ones(4, 2))

    msgs = []
    for lib in (torch, torchlike):
        with pytest.raises(RuntimeError) as e:
            run(lib)
        msgs.append(str(e.value).split(" of Parameter")[0].split(" of tensor")[0])
    assert msgs[1] == msgs[0]


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_rnn_modules_call_their_kernel_through_torch_function(mode):
    """nn.LSTM/GRU/RNN whose weights override ``__torch_function__`` hand it torch's kernel call (``torch.lstm``,
    ...), as torch's ``_VF`` call does; the output is the plain module's."""
    import numpy as np
    x = np.random.default_rng(0).standard_normal((3, 2, 4)).astype(np.float32)
    outs = []
    for lib in (torch, torchlike):
        seen = []

        class Logged(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(getattr(func, "__name__", ""))
                return super().__torch_function__(func, types, args, kwargs or {})

        lib.manual_seed(0)
        m = getattr(lib.nn, mode)(4, 3)
        plain = m(lib.tensor(x))[0].detach().numpy()
        params = {n: lib.Tensor._make_subclass(Logged, p.detach(), True) for n, p in m.named_parameters()}
        out = lib.func.functional_call(m, params, (lib.tensor(x),))[0]
        assert {"lstm": "LSTM", "gru": "GRU", "rnn_tanh": "RNN"}.keys() & set(seen), seen
        np.testing.assert_allclose(out.detach().numpy(), plain, rtol=1e-6)
        outs.append(plain)
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)


def test_lstm_under_expanded_weights_raises_like_torch():
    from importlib import import_module
    for lib in (torch, torchlike):
        psg = import_module(lib.__name__ + ".nn.utils._per_sample_grad")
        with pytest.raises(RuntimeError, match="Expanded Weights encountered but cannot handle function"):
            psg.call_for_per_sample_grads(lib.nn.LSTM(2, 3))(lib.ones(5, 4, 2))
