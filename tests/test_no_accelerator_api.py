"""What a CPU-only torch answers for its accelerator modules (torch.cuda, torch.xpu, torch.mps) and the thread and
precision settings: scripts and libraries probe them before choosing a device (found by a sweep of ~80 such calls
next to torch: torch.xpu and torch.mps did not exist, CUDA-only objects could be made without a GPU, and bad
settings were accepted)."""
import warnings

import pytest

import torchlike
from conftest import raises_like_torch, same_as_torch

pytestmark = pytest.mark.skipif(bool(torchlike.cuda.is_available()), reason="checks the answers without a GPU")

PROBES = {
    "xpu availability": lambda m: (m.xpu.is_available(), m.xpu.device_count(), m.xpu.is_initialized(),
                                   m.xpu.is_bf16_supported()),
    "xpu seeding and memory calls": lambda m: (m.xpu.manual_seed(0), m.xpu.manual_seed_all(0), m.xpu.seed(),
                                               m.xpu.empty_cache(), m.xpu.memory_allocated(),
                                               m.xpu.max_memory_reserved(), dict(m.xpu.memory_stats()),
                                               m.xpu.get_arch_list(), m.xpu.get_rng_state_all()),
    "mps availability": lambda m: (m.mps.is_available(), m.mps.device_count(), m.mps.manual_seed(0)),
    "float32 matmul precision that is not one": lambda m: (m.set_float32_matmul_precision("ultra"),
                                                           m.get_float32_matmul_precision()),
}


@pytest.mark.parametrize("case", list(PROBES))
def test_accelerator_probes_answer_like_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_as_torch(PROBES[case], grad=False)


ERRORS = {
    "xpu current_device": lambda m: m.xpu.current_device(),
    "xpu synchronize": lambda m: m.xpu.synchronize(),
    "xpu get_device_name": lambda m: m.xpu.get_device_name(),
    "xpu device context": lambda m: m.xpu.device(0).__enter__(),
    "xpu Event": lambda m: m.xpu.Event(),
    "mps synchronize": lambda m: m.mps.synchronize(),
    "mps empty_cache": lambda m: m.mps.empty_cache(),
    "mps current_allocated_memory": lambda m: m.mps.current_allocated_memory(),
    "cuda device context": lambda m: m.cuda.device(0).__enter__(),
    "cuda Generator": lambda m: m.Generator(device="cuda"),
    "CUDAGraph": lambda m: m.cuda.CUDAGraph(),
    "randn with varargs on cuda": lambda m: m.randn(2, 3, device="cuda"),
    "rand with varargs and an integer dtype": lambda m: m.rand(2, 3, dtype=m.long),
    "rand with a str among the varargs sizes": lambda m: m.rand(2, "x"),
    "randint with a str second size": lambda m: m.randint(3, (2, "a")),
    "set_num_threads(0)": lambda m: m.set_num_threads(0),
    "set_num_threads of a str": lambda m: m.set_num_threads("2"),
    "set_num_threads of a bool": lambda m: m.set_num_threads(True),
    "set_num_interop_threads of a float": lambda m: m.set_num_interop_threads(2.0),
    "set_float32_matmul_precision of an int": lambda m: m.set_float32_matmul_precision(3),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_accelerator_only_calls_raise_like_torch(case):
    raises_like_torch(ERRORS[case])


def test_negative_cuda_device_context_selects_nothing_like_torch():
    with torchlike.cuda.device(-1):
        assert torchlike.ones(1).device.type == "cpu"
