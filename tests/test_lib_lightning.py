"""pytorch-lightning under the drop-in runner, compared with real torch, and the torch APIs it reaches for.

tests/programs/lib_lightning_train.py runs once with real torch and once under ``python -m torchlike run``:
a LightningModule trained by ``pl.Trainer`` (fit/validate/test/predict, ``self.log``, an LR-scheduler config,
ModelCheckpoint, resuming with ``ckpt_path=``, load_from_checkpoint, EarlyStopping). torchlike's CPU random
streams are torch's, so every step's loss matches. The program check runs only where pytorch_lightning is
installed; the shim checks below need only torch (the oracle).
"""
import os

import pytest
from conftest import run_program, same_printed_lines

torch = pytest.importorskip("torch", reason="the expected values come from torch")

import torchlike  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")


def test_lightning_program_matches_torch(tmp_path):
    pytest.importorskip("pytorch_lightning", reason="pytorch-lightning is not installed")
    script = os.path.join(PROGRAMS, "lib_lightning_train.py")
    expected = run_program([script, str(tmp_path / "torch")], runner=False, timeout=600)
    ours = run_program([script, str(tmp_path / "torchlike")], runner=True, timeout=600)
    same_printed_lines(expected, ours, rtol=2e-5)
    assert sum(line.startswith("epoch ") for line in ours) == 6 + 6 + 6   # fit, resumed fit, early-stopped fit
    assert "load_from_checkpoint 16 True" in ours
    # the checkpoint Lightning wrote under torchlike is torch's: real torch loads it (weights_only) and it holds
    # what torch's own run saved
    ref = torch.load(str(tmp_path / "torch" / "ckpt" / "last.ckpt"), weights_only=True)
    got = torch.load(str(tmp_path / "torchlike" / "ckpt" / "last.ckpt"), weights_only=True)
    assert sorted(got) == sorted(ref) and got["loops"] == ref["loops"] and got["epoch"] == ref["epoch"]
    assert got["optimizer_states"][0]["param_groups"] == ref["optimizer_states"][0]["param_groups"]
    assert got["lr_schedulers"] == ref["lr_schedulers"]
    for k, v in ref["state_dict"].items():
        assert got["state_dict"][k].dtype == v.dtype
        torch.testing.assert_close(got["state_dict"][k], v, rtol=1e-5, atol=1e-6)


def test_torch_C_nn_parse_to_matches_torch():
    cases = [(("cpu",), {}), ((torch.float16,), {}), (("cpu", torch.float64), {}),
             ((), {"device": "cpu", "dtype": torch.float32, "non_blocking": True}),
             ((), {"memory_format": torch.channels_last})]
    for args, kwargs in cases:
        conv = {torch.float16: torchlike.float16, torch.float64: torchlike.float64, torch.float32: torchlike.float32,
                torch.channels_last: torchlike.channels_last}
        ours = torchlike._C._nn._parse_to(*[conv.get(a, a) for a in args],
                                          **{k: conv.get(v, v) for k, v in kwargs.items()})
        ref = torch._C._nn._parse_to(*args, **kwargs)
        assert [str(x) for x in ours] == [str(x) for x in ref], (args, kwargs)
    with pytest.raises(TypeError) as ref:
        torch._C._nn._parse_to("cpu", 3)
    with pytest.raises(TypeError) as ours:
        torchlike._C._nn._parse_to("cpu", 3)
    assert str(ours.value) == str(ref.value)


def test_flop_counter_matches_torch():
    from torch.utils.flop_counter import FlopCounterMode as TorchFCM

    from torchlike.utils.flop_counter import FlopCounterMode

    def work(lib):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2))
        m(lib.randn(5, 4))
        lib.randn(5, 4) @ lib.randn(4, 5)
        lib.bmm(lib.randn(2, 3, 4), lib.randn(2, 4, 5))
        lib.matmul(lib.randn(7, 2, 3, 4), lib.randn(4, 5))
        lib.randn(3, 1, 3, 4) @ lib.randn(2, 4, 5)
        lib.randn(4) @ lib.randn(4, 3)
        lib.randn(3, 4) @ lib.randn(4)   # mv: torch does not count it

    ref, ours = TorchFCM(display=False), FlopCounterMode(display=False)
    with ref:
        work(torch)
    with ours:
        work(torchlike)
    assert ours.get_total_flops() == ref.get_total_flops()
    expected = {mod: {str(op): n for op, n in counts.items()}
                for mod, counts in ref.get_flop_counts().items()}
    assert {mod: {str(op): n for op, n in counts.items()} for mod, counts in ours.get_flop_counts().items()} == \
        expected


def test_torch_function_mode_stack_and_helpers():
    from torchlike.overrides import TorchFunctionMode, _get_current_function_mode, is_tensor_like
    assert is_tensor_like(torchlike.zeros(1)) and not is_tensor_like(1.0)
    assert torch.overrides.is_tensor_like(torch.zeros(1)) and not torch.overrides.is_tensor_like(1.0)
    with TorchFunctionMode() as outer:
        with TorchFunctionMode() as inner:
            assert _get_current_function_mode() is inner
        assert _get_current_function_mode() is outer
    assert _get_current_function_mode() is None
    assert sorted(torchlike.overrides.__all__) == sorted(torch.overrides.__all__) or \
        set(torchlike.overrides.__all__) <= set(torch.overrides.__all__)


def test_tensor_meta_and_script_classes_match_torch():
    for lib in (torch, torchlike):
        assert isinstance(lib.Tensor, lib._C._TensorMeta)
        assert isinstance(lib.nn.Parameter, lib._C._TensorMeta)
        assert not isinstance(int, lib._C._TensorMeta)
        assert not isinstance(lib.zeros(1), lib._C._TensorMeta)
        assert lib.ScriptModule.__module__ == "torch" and lib.ScriptModule.__name__ == "ScriptModule"
        assert not isinstance(lib.nn.Linear(1, 1), lib.ScriptModule)


def test_pytorch_file_reader_reads_torch_archives(tmp_path):
    path = str(tmp_path / "x.pt")
    torch.save({"a": torch.arange(3)}, path)
    ref, ours = torch._C.PyTorchFileReader(path), torchlike.PyTorchFileReader(path)
    assert sorted(ours.get_all_records()) == sorted(ref.get_all_records())
    for name in ref.get_all_records():
        assert ours.get_record(name) == ref.get_record(name), name
        assert ours.get_record_offset(name) == ref.get_record_offset(name), name
    assert ours.serialization_id() == ref.serialization_id()
    assert ours.has_record("version") and not ours.has_record("nope")
    with pytest.raises(RuntimeError, match="PytorchStreamReader failed locating file nope"):
        ours.get_record("nope")
    with pytest.raises(RuntimeError, match="PytorchStreamReader failed locating file nope"):
        ref.get_record("nope")


def test_profiler_probes_match_torch():
    assert isinstance(torchlike.profiler.kineto_available(), bool)
    with torchlike.autograd.profiler.emit_itt():
        pass
    with torchlike.autograd.profiler.emit_nvtx(enabled=False):
        pass
    if not torch.cuda.is_available() and not torchlike.cuda.is_available():
        for lib in (torch, torchlike):
            with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
                with lib.autograd.profiler.emit_nvtx():
                    pass
    assert torchlike.cuda.get_rng_state_all() == [] if not torchlike.cuda.is_available() else True
    torchlike.cuda.set_rng_state_all([])


def test_optimized_module_path_matches_torch():
    from torchlike._dynamo import OptimizedModule
    assert OptimizedModule.__module__ == torch._dynamo.OptimizedModule.__module__ == "torch._dynamo.eval_frame"
    assert isinstance(torchlike.compile(torchlike.nn.Linear(2, 2)), OptimizedModule)


def test_deterministic_debug_mode_matches_torch():
    before = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    try:
        for mode in ("warn", "error", "default", 1, 2, 0):
            got = []
            for lib in (torch, torchlike):
                lib.set_deterministic_debug_mode(mode)
                got.append((lib.get_deterministic_debug_mode(), lib.is_deterministic_algorithms_warn_only_enabled(),
                            lib.are_deterministic_algorithms_enabled()))
            assert got[0] == got[1], mode
        for bad, exc in (("x", RuntimeError), (3, RuntimeError), (1.5, TypeError)):
            with pytest.raises(exc) as ref:
                torch.set_deterministic_debug_mode(bad)
            with pytest.raises(exc) as ours:
                torchlike.set_deterministic_debug_mode(bad)
            assert str(ours.value) == str(ref.value)
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])
        torchlike.use_deterministic_algorithms(False)


def test_distributed_backend_tables_match_torch():
    # torch's tables grow as backends register (importing torch's fake process group adds "hpu": "fake"):
    # torchlike's are torch's built-in entries
    ours, ref = torchlike.distributed.Backend, torch.distributed.Backend
    assert ours.default_device_backend_map.items() <= ref.default_device_backend_map.items()
    assert {"cpu", "cuda"} <= ours.default_device_backend_map.keys()
    assert ours.backend_list == ref.backend_list[:len(ours.backend_list)]
    assert all(ref.backend_capability[k] == v for k, v in ours.backend_capability.items())


def test_torch_function_mode_sees_and_skips_nn_init_as_under_torch():
    # Lightning's _EmptyInit (Trainer.init_module(empty_init=True)) skips the functions whose __module__ is
    # "torch.nn.init"; torch dispatches uniform_/normal_/constant_/kaiming_uniform_ to a mode, the others not
    script = os.path.join(PROGRAMS, "torch_function_init_modes.py")
    expected = run_program([script], runner=False, timeout=300)
    ours = run_program([script], runner=True, timeout=300)
    assert ours == expected
    assert expected[0].startswith("['kaiming_uniform_', 'uniform_'") and expected[1] == "(2, 3) False"
