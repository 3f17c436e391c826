"""Import paths libraries use beyond nn.modules/optim/...: every public module under torch.nn (less the
quantization/CUDA-only trees) imports under torchlike, with the public functions torch defines there, and
the top-level ``torch.*`` helpers libraries reach for exist and act like torch's.

captum imports ``torch.nn.parallel.scatter_gather`` at import time and checks ``isinstance(x, torch.Future)``;
other libraries annotate with ``torch.nn.common_types`` and call ``torch.nn.grad.conv2d_weight``.
"""
import importlib
import inspect
import pkgutil

import pytest

torch = pytest.importorskip("torch", reason="the oracle whose module tree is walked")
import torchlike  # noqa: E402

# trees torchlike does not mirror, and why
SKIP_PARTS = {
    "quantized": "quantization", "quantizable": "quantization", "qat": "quantization-aware training",
    "intrinsic": "fused quantization modules", "backends": "torch's C++ backend registry (thnn)",
    "experimental": "torch's experimental paged/quantized attention kernels", "varlen": "CUDA varlen attention",
    "cpp": "torch.nn.cpp wraps C++ frontend modules",
}
# public functions not mirrored yet, and why
NOT_YET = {
    "torch.nn": {"factory_kwargs"},
    "torch.nn.attention": {"register_flash_attention_impl", "activate_flash_attention_impl",
                           "list_flash_attention_impls", "current_flash_attention_impl",
                           "restore_flash_attention_impl"},  # CUDA flash-attention kernel registry
    "torch.nn.functional": {"assert_int_or_pair", "grouped_mm", "scaled_mm", "scaled_grouped_mm", "ScalingType",
                            "SwizzleType"},  # fp8/CUDA
}


def _public_nn_modules():
    mods = ["torch.nn"] + [m.name for m in pkgutil.walk_packages(torch.nn.__path__, "torch.nn.")]
    return [m for m in mods if not any(p.startswith("_") or p in SKIP_PARTS for p in m.split("."))]


@pytest.mark.parametrize("modname", _public_nn_modules())
def test_nn_module_importable_with_torchs_functions_and_classes(modname):
    mirrored = "torchlike" + modname[len("torch"):]
    mod = importlib.import_module(mirrored)
    tmod = importlib.import_module(modname)
    missing = [n for n, o in vars(tmod).items() if not n.startswith("_") and (inspect.isfunction(o) or inspect.isclass(o))
               and o.__module__ == modname and not hasattr(mod, n) and n not in NOT_YET.get(modname, ())]
    assert not missing, f"{mirrored} lacks {missing}"


def test_parallel_scatter_gather_chunks_like_torch_chunk():
    from torchlike.nn.parallel import comm
    from torchlike.nn.parallel.parallel_apply import parallel_apply
    from torchlike.nn.parallel.replicate import replicate
    from torchlike.nn.parallel.scatter_gather import gather, scatter, scatter_kwargs
    x = torch.arange(10.0).reshape(5, 2)
    parts = scatter((torchlike.tensor(x.numpy()), {"k": torchlike.ones(5)}, "s"), [0, 1])
    expected = [c.numpy() for c in x.chunk(2)]
    assert len(parts) == 2
    for (t, d, s), e in zip(parts, expected):
        assert t.numpy().tolist() == e.tolist() and d["k"].shape == (e.shape[0],) and s == "s"
    assert gather([p[0] for p in parts], 0).numpy().tolist() == x.numpy().tolist()
    ins, kws = scatter_kwargs((torchlike.ones(4),), {"a": torchlike.ones(4)}, [0, 1, 2])
    assert len(ins) == len(kws) == len(torch.ones(4).chunk(3))
    lin = torchlike.nn.Linear(2, 3)
    reps = replicate(lin, [0, 1])
    outs = parallel_apply(reps, [p[0] for p in parts])
    loss = gather(outs, 0).sum()
    loss.backward()
    assert lin.weight.grad is not None and outs[0].shape == (3, 3)
    assert comm.reduce_add([torchlike.ones(2), torchlike.ones(2)]).tolist() == [2.0, 2.0]
    assert torchlike.nn.DataParallel.__module__ == "torchlike.nn.parallel.data_parallel"


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_nn_grad_conv_input_and_weight_match_torch(dim):
    g = torch.Generator().manual_seed(dim)
    shape_x = (2, 4) + (7, 6, 5)[:dim]
    x = torch.randn(shape_x, generator=g)
    w = torch.randn((6, 2) + (3,) * dim, generator=g)
    kw = dict(stride=2, padding=1, groups=2, dilation=1)
    out = getattr(torch.nn.functional, f"conv{dim}d")(x, w, **kw)
    go = torch.randn(out.shape, generator=g)
    T = lambda t: torchlike.tensor(t.numpy())  # noqa: E731
    for name, args, targs in ((f"conv{dim}d_input", (x.shape, w, go), (tuple(x.shape), T(w), T(go))),
                              (f"conv{dim}d_weight", (x, w.shape, go), (T(x), tuple(w.shape), T(go)))):
        want = getattr(torch.nn.grad, name)(*args, **kw)
        got = getattr(torchlike.nn.grad, name)(*targs, **kw)
        assert got.shape == tuple(want.shape)
        assert got.numpy() == pytest.approx(want.numpy(), rel=1e-4, abs=1e-4), name


def test_common_types_aliases_exist():
    import torchlike.nn.common_types as ct
    names = [n for n in vars(torch.nn.common_types) if n.startswith("_s") or n.startswith("_r")
             or n in ("_tensor_list_t", "_maybe_indices_t")]
    assert names and all(str(getattr(ct, n)) == str(getattr(torch.nn.common_types, n)).replace(
        "torch.Tensor", "torchlike.tensor.Tensor") for n in names)


INPLACE = [n for n in dir(torch) if n.endswith("_") and not n.startswith("_") and hasattr(torch.Tensor, n)
           and n not in ("resize_", "set_", "fill_", "zero_", "index_put_", "index_fill_", "index_copy_",
                         "index_add_", "index_reduce_", "as_strided_", "squeeze_", "unsqueeze_", "transpose_",
                         "t_", "cumsum_", "cumprod_", "dropout_", "bernoulli_", "addmv_", "ldexp_", "gcd_",
                         "lcm_", "xlogy_", "clamp_max_", "clamp_min_", "embedding_renorm_", "detach_",
                         "conj_physical_", "sym_constrain_range_for_size", "rrelu_", "threshold_",
                         "feature_alpha_dropout_", "alpha_dropout_", "feature_dropout_", "copy_",
                         "polygamma_", "native_dropout_", "logit_", "clamp_", "clip_", "resize_as_",
                         "resize_as_sparse_")]


@pytest.mark.parametrize("name", INPLACE)
def test_toplevel_inplace_function_matches_torch(name):
    x = torch.tensor([0.25, 0.5, 0.75, 0.9])
    y = torchlike.tensor(x.numpy())
    r = getattr(torch, name)(x)
    rl = getattr(torchlike, name)(y)
    assert (r is x) == (rl is y)
    assert y.numpy() == pytest.approx(x.numpy(), rel=1e-5, abs=1e-6, nan_ok=True)


def test_toplevel_two_arg_inplace_and_helpers_match_torch():
    for name, other in (("clamp_max_", 0.5), ("clamp_min_", 0.5), ("xlogy_", 2.0), ("ldexp_", None)):
        x = torch.tensor([0.25, 0.5, 0.75])
        y = torchlike.tensor(x.numpy())
        o = torch.tensor([1.0, 2.0, 3.0]) if other is None else other
        ol = torchlike.tensor(o.numpy()) if other is None else other
        getattr(torch, name)(x, o)
        assert getattr(torchlike, name)(y, ol) is y
        assert y.numpy() == pytest.approx(x.numpy(), rel=1e-6), name
    a, al = torch.ones(2, requires_grad=True) * 2, torchlike.ones(2, requires_grad=True) * 2
    for fn in ("detach", "is_signed", "get_device", "is_inference"):
        ro, rl = getattr(torch, fn)(a), getattr(torchlike, fn)(al)
        assert (ro.requires_grad, ro.tolist()) == (rl.requires_grad, rl.tolist()) if fn == "detach" else ro == rl
    assert torchlike.is_anomaly_enabled() is torch.is_anomaly_enabled() is False
    assert torchlike.is_anomaly_check_nan_enabled() is torch.is_anomaly_check_nan_enabled()
    assert isinstance(torchlike.futures.Future(), torchlike.Future)
    assert torchlike.is_storage(torchlike.ones(2).untyped_storage()) and not torchlike.is_storage(al)


def test_torch_functional_holds_the_top_level_functions_like_torch():
    # opt_einsum_fx builds {torch.functional.einsum, torch.einsum} at import time (e3nn imports it)
    import torch.functional as tf
    ours = importlib.import_module("torchlike.functional")
    assert ours.__all__ == tf.__all__
    same = {n: getattr(tf, n) is getattr(torch, n, None) for n in tf.__all__}
    assert {n: getattr(ours, n) is getattr(torchlike, n) for n in tf.__all__} == same
    assert torchlike.functional is ours  # an attribute of the top-level module, as torch.functional is


def test_fx_module_paths_and_graph_module_is_a_module():
    # opt_einsum_fx: ``from torch.fx.node import Node``; e3nn's compile_mode requires GraphModule subclasses to be
    # nn.Module subclasses (its tensor products build FX graphs, which torchlike does not: see docs/differences.md)
    from torch.fx.node import Node, map_arg
    from torchlike.fx import node
    assert node.Node is torchlike.fx.Node and node.map_arg is torchlike.fx.map_arg
    assert Node is torch.fx.Node and map_arg is torch.fx.map_arg
    assert issubclass(torchlike.fx.GraphModule, torchlike.nn.Module) == issubclass(torch.fx.GraphModule, torch.nn.Module)
