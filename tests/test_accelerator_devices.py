"""torch.accelerator / torch.cuda memory and stream calls and torch_xla's 'xla' device over JAX's devices.

Without an accelerator every call is compared with CPU-only torch (same results or the same error); the
accelerator paths run against a fake JAX device that reports memory statistics the way JAX's GPU/TPU
clients do.
"""
import pytest

import torchlike
from torchlike import _device_memory, accelerator
from conftest import raises_like_torch

pytestmark = pytest.mark.skipif(torchlike.accelerator.is_available(), reason="these compare CPU-only behaviour")

NO_ARG = ["synchronize", "current_device_index", "empty_cache", "empty_host_cache", "get_device_capability",
          "get_memory_info", "memory_allocated", "max_memory_allocated", "memory_reserved",
          "max_memory_reserved", "memory_stats", "reset_accumulated_memory_stats", "reset_peak_memory_stats",
          "current_stream"]


@pytest.mark.parametrize("name", NO_ARG)
def test_accelerator_call_without_accelerator_raises_like_torch(name):
    raises_like_torch(lambda m: getattr(m.accelerator, name)())


@pytest.mark.parametrize("name", ["set_device_index"])
def test_accelerator_set_device_without_accelerator_raises_like_torch(name):
    raises_like_torch(lambda m: getattr(m.accelerator, name)(0))


def test_accelerator_queries_without_accelerator_match_torch():
    import torch
    assert torchlike.accelerator.is_available() is torch.accelerator.is_available() is False
    assert torchlike.accelerator.current_accelerator() is None and torch.accelerator.current_accelerator() is None
    assert torchlike.accelerator.device_count() == torch.accelerator.device_count() == 0
    assert set(torch.accelerator.__all__) - {"Graph"} <= set(dir(torchlike.accelerator))


def test_cuda_initialized_flag_matches_torch():
    """``torch.cuda._initialized`` (read by reversible layers and checkpointing before saving CUDA RNG state)."""
    import torch
    assert torchlike.cuda._initialized is torch.cuda._initialized is False
    with pytest.raises(AttributeError, match="^module 'torch.cuda' has no attribute 'no_such_name'$"):
        torchlike.cuda.no_such_name


@pytest.mark.parametrize("name", ["memory_allocated", "max_memory_allocated", "memory_reserved",
                                  "max_memory_reserved", "empty_cache"])
def test_cuda_memory_without_gpu_matches_torch(name):
    import torch
    assert getattr(torchlike.cuda, name)() == getattr(torch.cuda, name)()
    assert dict(torchlike.cuda.memory_stats()) == dict(torch.cuda.memory_stats()) == {}


@pytest.mark.parametrize("call", [lambda m: m.cuda.synchronize(), lambda m: m.cuda.mem_get_info(),
                                  lambda m: m.cuda.Stream(), lambda m: m.cuda.Event(enable_timing=True)])
def test_cuda_stream_event_without_gpu_raise_like_torch(call):
    raises_like_torch(call)


class _FakeDevice:
    platform, device_kind = "gpu", "Fake GPU"

    def __init__(self):
        self.stats = {"bytes_in_use": 1000, "peak_bytes_in_use": 5000, "bytes_limit": 8000}

    def memory_stats(self):
        return dict(self.stats)


def test_memory_figures_come_from_jax_memory_stats(monkeypatch):
    dev = _FakeDevice()
    monkeypatch.setattr(accelerator, "_gpus", lambda: [dev])
    assert accelerator.is_available() and accelerator.current_accelerator() == torchlike.device("cuda")
    assert accelerator.device_count() == 1
    assert accelerator.memory_allocated() == 1000
    assert accelerator.max_memory_allocated() == 5000
    assert accelerator.get_memory_info() == (7000, 8000)
    stats = accelerator.memory_stats()
    assert stats["allocated_bytes.all.current"] == 1000 and stats["allocated_bytes.all.peak"] == 5000
    # a reset peak: JAX keeps its lifetime peak, so until it grows the peak is today's use
    accelerator.reset_peak_memory_stats()
    dev.stats["bytes_in_use"] = 1200
    assert accelerator.max_memory_allocated() == 1200
    dev.stats["peak_bytes_in_use"] = 6000
    assert accelerator.max_memory_allocated() == 6000
    with pytest.raises(RuntimeError, match="out of range"):
        accelerator.memory_allocated(3)
    _device_memory._peak_at_reset.clear()


@pytest.mark.parametrize("name", ["memory_allocated", "max_memory_allocated", "memory_reserved", "memory_stats",
                                  "get_memory_info", "empty_cache", "reset_peak_memory_stats"])
def test_accelerator_memory_submodule_without_accelerator_raises_like_torch(name):
    import torch.accelerator.memory  # noqa: F401 - torch.accelerator.memory, the submodule
    import torchlike.accelerator.memory  # noqa: F401
    raises_like_torch(lambda m: getattr(m.accelerator.memory, name)())


@pytest.mark.parametrize("call", [lambda m: m.cuda.get_device_properties(0), lambda m: m.cuda.get_device_name(),
                                  lambda m: m.cuda.get_device_capability()])
def test_cuda_device_properties_without_gpu_raise_like_torch(call):
    raises_like_torch(call)


def test_device_properties_come_from_the_jax_device(monkeypatch):
    import torchlike.cuda as tcuda
    dev = _FakeDevice()
    dev.compute_capability, dev.core_count = "9.0", 132
    monkeypatch.setattr(tcuda, "_gpus", lambda: [dev])
    p = tcuda.get_device_properties(0)
    assert (p.name, p.major, p.minor, p.total_memory, p.multi_processor_count) == ("Fake GPU", 9, 0, 8000, 132)
    assert tcuda.get_device_capability() == (9, 0) and tcuda.get_device_name(0) == "Fake GPU"
    monkeypatch.setattr(accelerator, "_gpus", lambda: [dev])
    assert torchlike.accelerator.memory.memory_allocated() == 1000
    _device_memory._peak_at_reset.clear()


def test_xla_device_is_jax_default_backend():
    x = torchlike.ones(2, device="xla")
    assert str(x.device) == "xla:0" and x.device == torchlike.device("xla", 0)
    y = (x * 3).sum()
    assert y.device == x.device and y.item() == 6.0
    assert x.cpu().device == torchlike.device("cpu")
    assert torchlike.arange(3).to("xla").device.type == "xla"
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        x + torchlike.ones(2)


def test_tpu_device_without_tpu_raises_runtime_error():
    with pytest.raises(RuntimeError, match="none is available"):
        torchlike.ones(2, device="tpu")


@pytest.mark.skipif(torchlike.cuda.is_available(), reason="compares with a CPU-only torch build: needs no GPU")
def test_cuda_runtime_without_a_gpu_behaves_as_a_cpu_only_torch_build():
    import os

    from conftest import run_program
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "cuda_cpu_only.py")
    expected = run_program([script], runner=False, timeout=300)
    ours = run_program([script], runner=True, timeout=300)
    assert ours == expected
    assert "current_device() !! AssertionError Torch not compiled with CUDA enabled" in expected


@pytest.mark.parametrize("seed", ["torch.cuda.manual_seed", "torch.cuda.manual_seed_all",
                                  "torch.cuda.random.manual_seed", "torch.cuda.random.manual_seed_all"])
def test_cuda_seeding_without_gpu_leaves_the_cpu_stream_like_torch(seed):
    """Without a GPU torch queues CUDA seeding until CUDA initializes (never): the CPU stream goes on unchanged
    (torchattacks' APGD seeds both, torch.random first)."""
    import torch
    draws = []
    for m in (torch, torchlike):
        m.manual_seed(0)
        m.rand(2)
        eval(seed.replace("torch.", "m.", 1))(123)
        draws.append(m.rand(3).tolist())
    assert draws[0] == draws[1]


@pytest.mark.parametrize("sub", ["random", "memory"])
def test_cuda_submodules_mirror_torchs(sub):
    """``torch.cuda.random`` / ``torch.cuda.memory`` are modules with torch's names (torch.cuda's own functions)."""
    import types

    import torch
    ours, theirs = getattr(torchlike.cuda, sub), getattr(torch.cuda, sub)
    assert isinstance(ours, types.ModuleType)
    missing = [n for n in theirs.__all__ if not hasattr(ours, n)]
    if sub == "memory":   # pluggable allocators and memory pools: CUDA caching-allocator internals
        missing = [n for n in missing if n not in {"caching_allocator_disabled", "caching_allocator_enable",
                                                   "get_allocator_backend", "CUDAPluggableAllocator",
                                                   "change_current_allocator", "MemPool", "use_mem_pool"}]
    assert missing == []
    if sub == "memory":
        assert ours.memory_allocated() == theirs.memory_allocated() == 0
