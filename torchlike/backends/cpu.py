"""torch.backends.cpu: the CPU vector capability. torchlike runs CPU kernels through XLA, not ATen's
vectorized kernels, so it reports ``"DEFAULT"`` (libraries then take their portable code paths, e.g.
torchvision resizes uint8 images through float32).

>>> import torchlike
>>> torchlike.backends.cpu.get_cpu_capability()
'DEFAULT'
"""
import functools

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """The ATen CPU capability torch would dispatch to; torchlike has none beyond ``"DEFAULT"``."""
    return "DEFAULT"


@functools.cache
def _flags() -> frozenset:
    """This CPU's feature flags as Linux lists them (``avx512bw``, ``avx512_fp16``, ``bf16``...); empty where
    /proc/cpuinfo is not there. torch's oneDNN checks (``mkldnn_bf16_device_check``) read the same features."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("flags", "Features"):
                    return frozenset(value.split())
    except OSError:
        pass
    return frozenset()


def _onednn_half(dtype_name: str) -> bool:
    """Whether torch on this CPU gives ``dtype_name`` (bfloat16/float16) convolutions to oneDNN (f32
    accumulation, one rounding) rather than its own reference kernels: bf16 needs AVX-512 BW/VL/DQ (or Arm
    BF16), float16 needs AVX512-FP16 or AMX-FP16 (or Arm FP16 arithmetic)."""
    f = _flags()
    if dtype_name == "bfloat16":
        return {"avx512bw", "avx512vl", "avx512dq"} <= f or "bf16" in f
    return "avx512_fp16" in f or "amx_fp16" in f or "asimdhp" in f
