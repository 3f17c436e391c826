"""torchvision under the drop-in runner, and the torch APIs it reaches for (torch.hub, torch._C names, torch.types,
torch.onnx/jit registration hooks, torch.ops.load_library), each compared with real torch.

The program checks run only where torchvision (and pillow) is installed; each runs a tests/programs/tv_*.py program
once with real torch and once under ``python -m torchlike run`` and compares the printed lines.  The shim checks
need only torch (the oracle).
"""
import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import run_program, same_printed_lines

torch = pytest.importorskip("torch", reason="the expected values come from torch")

import torchlike  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")


def _need_torchvision():
    # find_spec, not import: a torchvision whose compiled ops do not match the installed torch fails at import
    # with real torch (the programs handle that); under the runner torchlike supplies the ops
    if importlib.util.find_spec("torchvision") is None:
        pytest.skip("torchvision is not installed")
    if importlib.util.find_spec("PIL") is None:
        pytest.skip("pillow (torchvision's image loader) is not installed")


def _run(args, runner, timeout=1800):
    env = dict(os.environ)
    env.setdefault("HF_HUB_OFFLINE", "1")
    return run_program(args, runner, env=env, timeout=timeout)


def test_torchvision_models_datasets_transforms_program_matches_torch(tmp_path):
    _need_torchvision()
    script = os.path.join(PROGRAMS, "tv_resnet_train.py")
    init = str(tmp_path / "init")  # torch writes the initial weights, torchlike starts from them
    expected = _run([script, init], runner=False)
    ours = _run([script, init], runner=True)
    same_printed_lines(expected, ours, rtol=2e-3)
    for model, steps in (("resnet18", 3), ("mobilenet_v3_small", 3), ("efficientnet_b0", 1), ("vit", 3)):
        assert sum(line.startswith(f"{model} step") for line in ours) == steps, model


def test_torchvision_ops_program_matches_torch():
    _need_torchvision()
    script = os.path.join(PROGRAMS, "tv_ops.py")
    expected = _run([script], runner=False)
    ours = _run([script], runner=True)
    same_printed_lines(expected, ours, rtol=1e-4)
    assert sum(line.startswith("roi_align") for line in ours) == 4


def test_torchvision_without_torch_installed(tmp_path):
    _need_torchvision()
    from test_libraries import _HIDE_TORCH
    wrapper, probe = tmp_path / "hide_torch.py", tmp_path / "probe.py"
    wrapper.write_text(_HIDE_TORCH)
    probe.write_text(textwrap.dedent("""
        import torch, torchvision
        from torchvision import models, ops, transforms
        print("has_ops", torchvision.extension._has_ops())
        x = torch.rand(2, 3, 32, 32)
        print("resnet18", tuple(models.resnet18(weights=None, num_classes=3)(x).shape))
        print("resize", tuple(transforms.Resize(16)(x).shape))
        try:
            ops.roi_pool(x, [torch.tensor([[0., 0., 8., 8.]])], 2)
        except NotImplementedError as e:
            print("roi_pool", "torchvision::roi_pool" in str(e))
        try:
            torch.ops.load_library("/nonexistent/libmyops.so")
        except OSError as e:
            print("load_library", type(e).__name__)
    """))
    out = subprocess.run([sys.executable, str(wrapper), str(probe)], capture_output=True, text=True, timeout=900,
                         cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                             [os.path.dirname(HERE)] + [p for p in [os.environ.get("PYTHONPATH")] if p])))
    assert out.returncode == 0, out.stderr[-4000:]
    assert out.stdout.splitlines()[1:] == ["has_ops True", "resnet18 (2, 3)", "resize (2, 3, 16, 16)",
                                           "roi_pool True", "load_library OSError"]


def test_timm_models_build_and_run_under_the_runner(tmp_path):
    _need_torchvision()
    if importlib.util.find_spec("timm") is None:
        pytest.skip("timm is not installed")
    probe = tmp_path / "timm_probe.py"
    probe.write_text(textwrap.dedent("""
        import torch, timm
        from timm.data import create_transform
        torch.manual_seed(0)
        for name in ["resnet18", "vit_tiny_patch16_224", "efficientnet_b0", "convnext_atto"]:
            m = timm.create_model(name, pretrained=False, num_classes=3).eval()
            x = torch.rand(1, 3, 224, 224) if "vit" in name else torch.rand(1, 3, 64, 64)
            print(name, tuple(m(x).shape))
        print(type(create_transform(32, is_training=True)).__name__)
    """))
    ours = _run([str(probe)], runner=True)
    assert ours[-5:] == ["resnet18 (1, 3)", "vit_tiny_patch16_224 (1, 3)", "efficientnet_b0 (1, 3)",
                         "convnext_atto (1, 3)", "Compose"]


# --- the shims, against torch (no torchvision needed) ---------------------------------------------------------
def test_hub_dirs_and_local_checkpoints_like_torch(tmp_path, monkeypatch):
    import torch.hub as th
    import torchlike.hub as lh
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    assert lh.get_dir() == th.get_dir() and lh._get_torch_home() == th._get_torch_home()
    ckpt = tmp_path / "weights-abc.pt"
    torch.save({"w": torch.arange(3.0)}, ckpt)
    url = "file://" + str(ckpt)
    a = th.load_state_dict_from_url(url, model_dir=str(tmp_path / "t"))
    b = lh.load_state_dict_from_url(url, model_dir=str(tmp_path / "l"))
    assert sorted(os.listdir(tmp_path / "t")) == sorted(os.listdir(tmp_path / "l")) == ["weights-abc.pt"]
    assert b["w"].tolist() == a["w"].tolist()
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "hubconf.py").write_text("def tiny(n=2):\n    return list(range(n))\n")
    assert lh.load(str(tmp_path / "repo"), "tiny", 3, source="local") == \
        th.load(str(tmp_path / "repo"), "tiny", 3, source="local")
    with pytest.raises(ValueError) as e_l:
        lh.load("x", "y", source="gitlab")
    with pytest.raises(ValueError) as e_t:
        th.load("x", "y", source="gitlab")
    assert str(e_l.value) == str(e_t.value)
    from torchlike.utils import model_zoo
    assert model_zoo.load_url is lh.load_state_dict_from_url


def test_torch_C_names_like_torch():
    from torchlike import _C
    for name in ("AutocastCPU", "AutocastCUDA", "AutocastXPU", "CPU", "Meta", "CompositeImplicitAutograd"):
        assert int(getattr(_C.DispatchKey, name)) == int(getattr(torch._C.DispatchKey, name)), name
    ks = _C.DispatchKeySet(_C.DispatchKey.AutocastCPU) | _C.DispatchKeySet(_C.DispatchKey.AutocastCUDA)
    kt = torch._C.DispatchKeySet(torch._C.DispatchKey.AutocastCPU) | \
        torch._C.DispatchKeySet(torch._C.DispatchKey.AutocastCUDA)
    assert repr(ks) == repr(kt)
    with _C._ExcludeDispatchKeyGuard(ks), _C.DisableTorchFunctionSubclass():
        pass
    assert _C._get_tracing_state() is torch._C._get_tracing_state() is None
    assert _C._log_api_usage_once("x") is None
    with pytest.raises(NotImplementedError, match="torch._C._no_such_thing"):
        _C._no_such_thing


def test_assert_types_backends_like_torch():
    for mod in (torch, torchlike):
        mod._assert(True, "fine")
        with pytest.raises(AssertionError, match="^bad$"):
            mod._assert(False, "bad")
    import torch.types as tt
    import torchlike.types as lt
    assert lt._device is torchlike.device and lt._dtype is torchlike.dtype
    assert {n for n in ("Number", "Device", "_size", "_int", "_float", "FileLike", "py_sym_types")} <= set(dir(lt))
    assert lt._int is tt._int and lt.Number == tt.Number
    assert torchlike.backends.cpu.get_cpu_capability() == "DEFAULT"
    assert set(dir(torchlike.backends.cpu)) >= {n for n in dir(torch.backends.cpu) if not n.startswith("_")} - {"torch"}


def test_onnx_jit_ao_hooks_libraries_call_at_import():
    import torchlike.onnx as lo
    lo.register_custom_op_symbolic("mylib::op", lambda g, x: x, 11)
    lo.unregister_custom_op_symbolic("mylib::op", 11)
    from torchlike.onnx.symbolic_helper import parse_args
    assert parse_args("v")(len) is len
    with pytest.raises(NotImplementedError, match="torch.onnx.symbolic_opset11.unsqueeze"):
        lo.symbolic_opset11.unsqueeze
    from torch.jit.annotations import BroadcastingList2 as TB
    from torchlike.jit.annotations import BroadcastingList2 as LB
    assert LB[int] == TB[int]
    assert torchlike.jit.Final is torch.jit.Final  # typing.Final: subscripted in class bodies (timm)
    f = torchlike.jit._script_if_tracing(len)
    assert f([1, 2]) == 2 and torchlike.jit._overload_method(len) is len
    from torchlike.ao.quantization import DeQuantStub, QuantStub
    x = torchlike.ones(2)
    assert QuantStub()(x) is x and DeQuantStub()(x) is x
    assert QuantStub.__module__ == "torchlike.ao.quantization.stubs"
    assert torch.ao.quantization.QuantStub.__module__ == "torch.ao.quantization.stubs"
    from torchlike._dynamo.utils import is_compile_supported
    from torch._dynamo.utils import is_compile_supported as t_ics
    assert is_compile_supported("cpu") == t_ics("cpu")


def test_load_library_fails_like_a_torch_extension_that_cannot_load(tmp_path):
    bogus = tmp_path / "libnotanextension.so"
    bogus.write_bytes(b"not an ELF")
    with pytest.raises(OSError):
        torch.ops.load_library(str(bogus))
    with pytest.raises(OSError, match="Could not load this library"):
        torchlike.ops.load_library(str(bogus))


def test_library_meta_impl_is_a_shape_function_not_the_kernel():
    lib = torchlike.library.Library("tvtestlib", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    torchlike.library.Library("tvtestlib", "IMPL", "CPU").impl("twice", lambda x: x * 2)
    torchlike.library.Library("tvtestlib", "IMPL", "Meta").impl("twice", lambda x: torchlike.empty_like(x))
    torchlike.library.Library("tvtestlib", "IMPL").impl("twice", lambda x: x * 3, "AutocastCPU")
    assert torchlike.ops.tvtestlib.twice(torchlike.ones(2)).tolist() == [2.0, 2.0]


def _nms_reference(boxes, scores, thr):
    order = np.argsort(-scores, kind="stable")
    x1, y1, x2, y2 = boxes.T
    area = (x2 - x1) * (y2 - y1)
    keep, dead = [], np.zeros(len(boxes), bool)
    for i in order:
        if dead[i]:
            continue
        keep.append(int(i))
        w = np.clip(np.minimum(x2[i], x2) - np.maximum(x1[i], x1), 0, None)
        h = np.clip(np.minimum(y2[i], y2) - np.maximum(y1[i], y1), 0, None)
        inter = w * h
        dead |= inter / (area[i] + area - inter) > thr
    return keep


@pytest.mark.parametrize("n,thr", [(0, 0.5), (1, 0.5), (50, 0.3), (200, 0.6), (200, 0.0)])
def test_vision_nms_kernel_matches_reference(n, thr):
    from torchlike import _vision_ops
    _vision_ops.register()
    rng = np.random.default_rng(n)
    xy = rng.uniform(0, 50, (n, 2)).astype(np.float32)
    b = np.concatenate([xy, xy + rng.uniform(1, 25, (n, 2)).astype(np.float32)], 1)
    s = rng.uniform(0, 1, n).astype(np.float32)
    s[: n // 4] = 0.5  # ties keep index order (stable sort), as torchvision's kernel
    keep = torchlike.ops.torchvision.nms(torchlike.from_numpy(b), torchlike.from_numpy(s), thr)
    assert keep.dtype == torchlike.int64
    assert keep.tolist() == _nms_reference(b, s, thr)
    with pytest.raises(RuntimeError, match="boxes should have 4 elements in dimension 1, got 3"):
        torchlike.ops.torchvision.nms(torchlike.zeros(2, 3), torchlike.zeros(2), 0.5)
