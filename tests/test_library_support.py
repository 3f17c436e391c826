"""The torch APIs that libraries built on torch reach for (pytree, nn.attention, library, compiler, storages,
float8 dtypes, view(dtype), device contexts, _check), each compared with real torch."""
import collections
import copy
import ctypes
import importlib.metadata
import math
import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the expected values come from torch")

import torchlike  # noqa: E402
from torchlike.utils import _pytree as lp  # noqa: E402
from conftest import run_program  # noqa: E402
import torch.utils._pytree as tp  # noqa: E402

TREES = [{"a": [1, (2, 3)], "b": None}, collections.OrderedDict(x=1, y=[2]), collections.defaultdict(list, k=(1, 2)),
         collections.deque([1, 2], maxlen=3), (), [[]], 5, collections.namedtuple("P", "x y")(1, [2])]


@pytest.mark.parametrize("tree", TREES, ids=lambda t: type(t).__name__)
def test_pytree_matches_torch(tree):
    a, b = lp.tree_flatten(tree), tp.tree_flatten(tree)
    assert a[0] == b[0] and repr(a[1]) == repr(b[1])
    assert lp.tree_unflatten(*a) == tree
    assert repr(lp.tree_flatten_with_path(tree)) == repr(tp.tree_flatten_with_path(tree))
    assert lp.tree_map(lambda x: x, tree) == tp.tree_map(lambda x: x, tree)
    assert (a[1].num_leaves, a[1].num_nodes) == (b[1].num_leaves, b[1].num_nodes)
    if not isinstance(tree, (collections.defaultdict, tuple)) or type(tree) is tuple:
        assert lp.treespec_dumps(a[1]) == tp.treespec_dumps(b[1])
        assert lp.treespec_loads(lp.treespec_dumps(a[1])) == a[1]


def test_pytree_registration_and_errors_match_torch():
    class Box:
        def __init__(self, v):
            self.v = v
    for mod in (lp, tp):
        mod.register_pytree_node(Box, lambda b: ([b.v], None), lambda vs, _: Box(vs[0]))
        leaves, spec = mod.tree_flatten([Box(3), 4])
        assert leaves == [3, 4] and mod.tree_unflatten([5, 6], spec)[0].v == 5
        with pytest.raises(ValueError, match="already registered"):
            mod.register_pytree_node(Box, lambda b: ([b.v], None), lambda vs, _: Box(vs[0]))
    msgs = []
    for mod in (lp, tp):
        with pytest.raises(ValueError) as e:
            mod.tree_unflatten([1], mod.tree_structure((0, 0)))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_sdpa_kernel_and_backends_like_torch():
    from torch.nn.attention import SDPBackend as TB, sdpa_kernel as tk
    from torchlike.nn.attention import SDPBackend as LB, sdpa_kernel as lk
    assert {n: int(v) for n, v in LB.__members__.items()} == {n: int(v) for n, v in TB.__members__.items()}
    assert repr(LB.MATH) == repr(TB.MATH) and str(LB.FLASH_ATTENTION) == str(TB.FLASH_ATTENTION)
    with lk([LB.MATH, LB.FLASH_ATTENTION]) as a, tk([TB.MATH, TB.FLASH_ATTENTION]) as b:
        assert a == b
    errs = []
    for k in (lk, tk):
        with pytest.raises(AssertionError) as e:
            with k("math"):
                pass
        errs.append(str(e.value))
    assert errs[0] == errs[1]


def _sdp_flags(T):
    c = T.backends.cuda
    return (c.flash_sdp_enabled(), c.mem_efficient_sdp_enabled(), c.math_sdp_enabled(), c.cudnn_sdp_enabled())


def _sdp_switches(T):
    """What the SDPA backend switches report inside and after sdpa_kernel / the deprecated sdp_kernel."""
    import warnings
    B, c, seen = T.nn.attention.SDPBackend, T.backends.cuda, []
    with T.nn.attention.sdpa_kernel([B.MATH, B.MATH, B.CUDNN_ATTENTION]):
        seen.append(_sdp_flags(T))
    seen.append(_sdp_flags(T))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with c.sdp_kernel(enable_flash=False, enable_cudnn=False) as ctx:
            seen.append((_sdp_flags(T), ctx))
    seen.append([(x.category.__name__, str(x.message), x.filename.rsplit("/", 1)[-1]) for x in w])
    with pytest.raises(AssertionError) as e:
        with T.nn.attention.sdpa_kernel((B.MATH,)):
            pass
    seen.append(str(e.value))
    seen.append((c.SDPBackend is B, c.is_flash_attention_available(), str(c.preferred_linalg_library()),
                 str(c.preferred_blas_library()), c.fp16_bf16_reduction_math_sdp_allowed()))
    with pytest.raises(RuntimeError) as e:
        c.preferred_blas_library("x")
    seen.append(str(e.value))
    return seen


def test_sdp_backend_switches_like_torch():
    assert _sdp_switches(torchlike) == _sdp_switches(torch)


@pytest.mark.parametrize("gqa", [False, True])
def test_flex_attention_matches_torch_sdpa(gqa):
    from torchlike.nn.attention.flex_attention import create_block_mask, flex_attention
    rng = np.random.default_rng(0)
    q = rng.standard_normal((2, 4, 6, 8)).astype(np.float32)
    kv = rng.standard_normal((2, 2 if gqa else 4, 6, 8)).astype(np.float32)
    bm = create_block_mask(lambda b, h, qi, ki: qi >= ki, None, None, 6, 6, device="cpu")
    soft = lambda s, b, h, qi, ki: s * 0.5  # noqa: E731
    ours = flex_attention(torchlike.from_numpy(q), torchlike.from_numpy(kv), torchlike.from_numpy(kv),
                          score_mod=soft, block_mask=bm, enable_gqa=gqa)
    expected = torch.nn.functional.scaled_dot_product_attention(
        torch.from_numpy(q), torch.from_numpy(kv), torch.from_numpy(kv), is_causal=True, enable_gqa=gqa,
        scale=0.5 / math.sqrt(8))
    np.testing.assert_allclose(ours.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)


def test_custom_op_with_autograd_like_torch():
    def build(lib, name):
        @lib.library.custom_op(f"libtest::{name}", mutates_args=())
        def cube(x: lib.Tensor) -> lib.Tensor:
            return x * x * x

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x * x * g
        cube.register_autograd(backward, setup_context=setup_context)
        return cube
    results = []
    for lib, name in ((torch, "cube_t"), (torchlike, "cube_l")):
        op = build(lib, name)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        getattr(lib.ops.libtest, name)(x).sum().backward()
        results.append((op(lib.tensor([3.0])).tolist(), x.grad.tolist()))
    assert results[0] == results[1] == ([27.0], [3.0, 12.0])


def test_register_kernel_on_defined_schemas_like_torch():
    """torch.library.register_kernel on an op made by torch.library.define / Library.define (bitsandbytes
    registers its "default" kernels so): the op runs the kernel; a kernel for another device leaves the CPU one
    in place (torchlike raised "no operator ... defined with custom_op", and Library.impl ignored the key)."""
    results = []
    for lib, ns in ((torch, "regk_t"), (torchlike, "regk_l")):
        lib.library.define(f"{ns}::scale", "(Tensor x, float s) -> Tensor")
        lib.library.register_kernel(f"{ns}::scale", "default", lambda x, s: x * s)
        lib.library.register_fake(f"{ns}::scale", lambda x, s: lib.empty_like(x))
        keep = lib.library.Library(f"{ns}b", "DEF")
        keep.define("add1(Tensor x) -> Tensor")
        lib.library.register_kernel(f"{ns}b::add1", "cpu", lambda x: x + 1)
        first = getattr(lib.ops, f"{ns}b").add1(lib.ones(2)).tolist()
        lib.library.impl(f"{ns}b::add1", ["CUDA"], lambda x: x + 3)
        results.append((getattr(lib.ops, ns).scale(lib.ones(2), 3.0).tolist(), first,
                        getattr(lib.ops, f"{ns}b").add1(lib.ones(2)).tolist()))
        with pytest.raises(ValueError) as e:
            lib.library.register_kernel(3, "cpu", lambda x: x)
        results.append(str(e.value))
    assert results[0] == results[2] and results[1] == results[3], results
    assert results[0] == ([3.0, 3.0], [2.0, 2.0], [2.0, 2.0])


def test_compiler_and_dynamo_markers():
    assert torchlike.compiler.is_compiling() is False and torchlike._dynamo.is_compiling() is False
    seen = []

    @torchlike.compile
    def f(x):
        seen.append(torchlike.compiler.is_compiling())
        return x + 1
    f(torchlike.ones(2))
    assert seen == [True]
    assert torchlike.compiler.list_backends() == torch.compiler.list_backends()
    assert torchlike.compiler.disable(len)([1, 2]) == 2
    with torchlike._dynamo.config.patch(cache_size_limit=3):
        assert torchlike._dynamo.config.cache_size_limit == 3
    assert torchlike._dynamo.config.cache_size_limit == torchlike.compile.config.cache_size_limit


def _dotted(obj, name):
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _fresh_copy(module):
    """A new copy of ``module`` executed from its file (registered in sys.modules only while it runs)."""
    import importlib.util
    name = module.__name__ + "_fresh"
    spec = importlib.util.spec_from_file_location(name, module.__file__)
    copy = sys.modules[name] = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(copy)
    finally:
        del sys.modules[name]
    return copy


def test_inductor_config_settings_have_torchs_defaults_and_patch():
    import torch._inductor.config as theirs  # (torch loads it on first use too)
    # torch's defaults (other tests may have set values); a default computed at import (an env var's) as it reads
    default = {k: e.default if isinstance(e.default, (bool, int, float, str, type(None))) else _dotted(theirs, k)
               for k, e in theirs._config.items()}
    ours = torchlike._inductor.config
    fresh = _fresh_copy(ours)  # our defaults, whatever other tests (or a doctest) in this process set
    names = [n for n in vars(fresh) if not n.startswith("_") and n not in ("sys", "SettingsModule", "SubConfig")]
    assert len(names) > 25
    for n in names:
        mine = getattr(fresh, n)
        if isinstance(mine, torchlike._config_module.SubConfig):
            for k, v in vars(mine).items():
                assert default[f"{n}.{k}"] == v, f"{n}.{k}"
        else:
            assert default[n] == mine, n
    with ours.patch({"triton.cudagraphs": True, "max_autotune": True}):
        assert ours.triton.cudagraphs is True and ours.max_autotune is True
    assert ours.triton.cudagraphs is False and ours.max_autotune is False
    ours.coordinate_descent_tuning = True  # a script's setting is kept (and has no effect)
    assert ours.coordinate_descent_tuning is True
    ours.coordinate_descent_tuning = False


def test_inductor_utils_triton_dtype_names_like_torch():
    """torch._inductor.utils' dtype-name helpers (torch-optimi builds its Triton dtype table with them whenever
    triton is installed): every torch dtype's Triton name, the names read back, and an unknown name's error."""
    import torch._inductor.utils as theirs
    from torchlike._inductor import utils as ours
    names = [n for n in dir(torch) if isinstance(getattr(torch, n), torch.dtype) and hasattr(torchlike, n)]
    assert len(names) > 30
    for n in names:
        assert ours.triton_type(getattr(torchlike, n)) == theirs.triton_type(getattr(torch, n)), n
    for s in ["tl.float32", "float32", "tl.int1", "bfloat16", "tl.uint8", "tl.float8e4nv", "tl.float8e5b16", "int8"]:
        assert str(ours.triton_type_to_torch(s)) == str(theirs.triton_type_to_torch(s)), s
    with pytest.raises(AttributeError) as te:
        theirs.triton_type_to_torch("tl.nope")
    with pytest.raises(AttributeError) as le:
        ours.triton_type_to_torch("tl.nope")
    assert str(le.value) == str(te.value)


def test_disable_dynamo_decorator_like_torch():
    """torch._disable_dynamo, bare or with recursive=False (torch-optimi's optimizer methods carry it): the
    function still runs and keeps its name."""
    for lib in (torch, torchlike):
        @lib._disable_dynamo
        def step(x):
            return x * 2

        @lib._disable_dynamo(recursive=False)
        def zero(x):
            return x * 0

        assert step.__name__ == "step" and zero.__name__ == "zero"
        assert step(lib.ones(2)).tolist() == [2.0, 2.0] and zero(lib.ones(1)).tolist() == [0.0]


def test_dynamo_utils_disable_cache_limit_like_torch():
    """torch._dynamo.utils (loaded with torch._dynamo) and its disable_cache_limit (heavyball wraps each optimizer
    step in it): the recompile limits are sys.maxsize inside the block and restored after it."""
    import torch._dynamo
    seen = []
    for lib in (torch, torchlike):
        cfg = lib._dynamo.config
        before = (cfg.recompile_limit, cfg.accumulated_recompile_limit)
        with lib._dynamo.utils.disable_cache_limit():
            seen.append((cfg.recompile_limit, cfg.accumulated_recompile_limit))
        seen.append((cfg.recompile_limit, cfg.accumulated_recompile_limit) == before)
    assert seen[2:] == seen[:2] and seen[0] == (sys.maxsize, sys.maxsize)


def test_float8_dtypes_like_torch():
    for name in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"):
        L, T = getattr(torchlike, name), getattr(torch, name)
        assert repr(L) == repr(T) and L.itemsize == T.itemsize and L.is_floating_point
        assert repr(torchlike.finfo(L)) == repr(torch.finfo(T))
        x = [1.5, 300.0, -0.1]
        np.testing.assert_array_equal(torchlike.tensor(x).to(L).float().numpy(),
                                      torch.tensor(x).to(T).float().numpy())
        msgs = []
        for lib, d in ((torchlike, L), (torch, T)):
            with pytest.raises(RuntimeError) as e:
                lib.promote_types(d, lib.float32)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]


@pytest.mark.parametrize("case", ["u8_as_f32", "f32_as_u8", "bf16_as_i16", "f16_as_u8_2d"])
def test_view_dtype_across_sizes_like_torch(case):
    src, dst, shape = {"u8_as_f32": ("uint8", "float32", (2, 8)), "f32_as_u8": ("float32", "uint8", (3,)),
                       "bf16_as_i16": ("bfloat16", "int16", (4,)), "f16_as_u8_2d": ("float16", "uint8", (2, 3))}[case]
    vals = np.random.default_rng(1).integers(0, 200, shape)
    t = torch.tensor(vals).to(getattr(torch, src)).view(dtype=getattr(torch, dst))
    ours = torchlike.tensor(vals).to(getattr(torchlike, src)).view(dtype=getattr(torchlike, dst))
    assert tuple(ours.shape) == tuple(t.shape) and repr(ours.dtype) == repr(t.dtype)
    np.testing.assert_array_equal(ours.float().numpy(), t.float().numpy())


@pytest.mark.parametrize("bad", ["size", "stride", "zero_dim", "offset"])
def test_view_dtype_errors_like_torch(bad):
    msgs = []
    for lib in (torch, torchlike):
        x = lib.arange(6, dtype=lib.uint8)
        f = {"size": lambda: x.view(lib.float32), "stride": lambda: x.view(2, 3).t().view(lib.int16),
             "zero_dim": lambda: lib.zeros(()).view(lib.uint8), "offset": lambda: x[1:5].view(lib.int32)}[bad]
        with pytest.raises(RuntimeError) as e:
            f()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_data_ptr_is_readable_memory_and_unique_per_storage():
    x = torchlike.tensor([1.0, 2.0, 3.0, 4.0])
    p = x[1:].data_ptr()
    t = torch.arange(4.0)
    assert p - x.data_ptr() == 4 == t[1:].data_ptr() - t.data_ptr()
    view = np.ctypeslib.as_array(ctypes.cast(p, ctypes.POINTER(ctypes.c_float)), (3,))
    assert view.tolist() == [2.0, 3.0, 4.0]
    assert copy.deepcopy(x).data_ptr() != x.data_ptr()  # a new storage, as in torch
    assert x.detach().data_ptr() == x.data_ptr() and x.untyped_storage().nbytes() == 16
    assert x[2].untyped_storage().data_ptr() == x.data_ptr()


def test_data_ptr_of_a_result_still_being_computed_reads_its_values():
    # XLA dispatches asynchronously; safetensors' save_file reads data_ptr() memory through ctypes at once.
    # Before the fix 16 of 20 such reads saw an unwritten buffer (a saved checkpoint held garbage).
    a = np.random.default_rng(0).standard_normal((600, 600)).astype(np.float32)
    for _ in range(6):
        got = []
        for lib in (torch, torchlike):
            t = lib.from_numpy(a)
            b = (t @ t) @ t + 1.0
            raw = np.ctypeslib.as_array(ctypes.cast(b.data_ptr(), ctypes.POINTER(ctypes.c_float)), (b.numel(),))
            got.append(raw.copy())
        np.testing.assert_allclose(got[1], got[0], rtol=1e-3, atol=1e-2)


def test_untyped_storage_from_file_as_safetensors_reads_it(tmp_path):
    path = tmp_path / "blob"
    np.arange(4, dtype=np.float32).tofile(path)
    for lib in (torch, torchlike):
        s = lib.UntypedStorage.from_file(str(path), False, 16)
        t = lib.asarray(s[4:12], dtype=lib.uint8).view(dtype=lib.float32).reshape([2])
        assert t.tolist() == [1.0, 2.0] and s.nbytes() == 16


def test_device_context_manager_like_torch():
    for lib in (torch, torchlike):
        with lib.device("meta"):
            assert lib.nn.Linear(2, 3).weight.device.type == "meta"
        assert lib.zeros(1).device.type == "cpu"
        with lib.device("cpu"):
            assert lib.ones(2).device.type == "cpu"


@pytest.mark.parametrize("fn,args", [("_check", (False,)), ("_check", (False, lambda: "custom")),
                                     ("_check_is_size", (-1,)), ("_check_index", (False,)),
                                     ("_check_value", (False, lambda: "v"))])
def test_check_family_like_torch(fn, args):
    import warnings
    got = []
    for lib in (torch, torchlike):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as e:
                getattr(lib, fn)(*args)
        got.append((type(e.value).__name__, str(e.value)))
    assert got[0] == got[1]


def test_sym_helpers_constants_layout_like_torch():
    for name, args in [("sym_max", (2, 3.0)), ("sym_min", (2, 3)), ("sym_float", (2,)), ("sym_int", (2.7,)),
                       ("sym_not", (True,)), ("sym_ite", (False, 1, 2)), ("sym_sum", ([1, 2, 3],))]:
        a, b = getattr(torchlike, name)(*args), getattr(torch, name)(*args)
        assert (a, type(a)) == (b, type(b)), name
    for name in ("inf", "pi", "e", "newaxis"):
        assert getattr(torchlike, name) == getattr(torch, name)
    assert math.isnan(torchlike.nan)
    assert repr(torchlike.ones(1).layout) == repr(torch.ones(1).layout) == repr(torchlike.strided)
    assert torchlike.legacy_contiguous_format is torchlike.contiguous_format
    assert torchlike.version.cuda is None and torchlike.version.hip is None
    assert not torchlike.cuda.is_current_stream_capturing()


def test_runner_metadata_answers_like_installed_torch():
    from torchlike._runner import TorchFinder
    dists = list(TorchFinder().find_distributions(importlib.metadata.DistributionFinder.Context(name="torch")))
    assert [d.version for d in dists] == ["2.13.0"] == [importlib.metadata.version("torch").split("+")[0]]
    assert dists[0].metadata["Name"] == "torch"
    assert list(TorchFinder().find_distributions(importlib.metadata.DistributionFinder.Context(name="numpy"))) == []
    spec = TorchFinder().find_spec("torch")
    assert spec.origin.endswith("__init__.py") and TorchFinder().find_spec("numpy") is None


def test_custom_ops_tutorial_program_prints_what_torch_prints():
    # custom_op with a numpy implementation + register_fake/register_autograd, under compile(fullgraph) and vmap;
    # infer_schema's types, defaults and errors; opcheck's results; a backward without a formula
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "custom_ops.py")
    expected = run_program([script], runner=False, timeout=300)
    ours = run_program([script], runner=True, timeout=300)
    assert ours == expected
    assert len(expected) > 30 and "'test_faketensor': 'SUCCESS'" in expected[4]
