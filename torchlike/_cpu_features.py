"""This CPU's feature flags, for the numerics that depend on which kernels torch picks on it (torch gives
half-precision convolutions to oneDNN only on CPUs with the right instructions). A leaf: no torchlike import.

>>> from torchlike._cpu_features import onednn_half
>>> onednn_half("bfloat16") in (True, False)
True
"""
from __future__ import annotations

import functools
import os
import platform

__all__ = ["flags", "onednn_half", "aten_vector_bytes", "aten_fma"]


@functools.cache
def flags() -> frozenset:
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


def onednn_half(dtype_name: str) -> bool:
    """Whether torch on this CPU gives ``dtype_name`` (bfloat16/float16) convolutions to oneDNN (f32
    accumulation, one rounding) rather than its own reference kernels: bf16 needs AVX-512 BW/VL/DQ (or Arm
    BF16), float16 needs AVX512-FP16 or AMX-FP16 (or Arm FP16 arithmetic)."""
    f = flags()
    if dtype_name == "bfloat16":
        return {"avx512bw", "avx512vl", "avx512dq"} <= f or "bf16" in f
    return "avx512_fp16" in f or "amx_fp16" in f or "asimdhp" in f


def aten_vector_bytes(avx512_kernel: bool = True) -> int:
    """The width of ATen's ``Vectorized<T>`` on this CPU: 64 bytes where torch's CPU dispatch picks its AVX512
    kernels (AVX-512 F/BW/VL/DQ), 32 with its AVX2 ones. ``ATEN_CPU_CAPABILITY`` (``avx2``, ``default``...)
    lowers torch's choice, and ours with it. ``avx512_kernel=False`` is for the ops whose kernel ATen
    registers with plain ``REGISTER_DISPATCH`` (no ``ALSO_REGISTER_AVX512_DISPATCH``: arange and linspace,
    among others): their AVX512 slot is empty, so AVX-512 CPUs run their AVX2 build, 32-byte vectors.

    >>> aten_vector_bytes(avx512_kernel=False)
    32
    """
    if not avx512_kernel:
        return 32
    if os.environ.get("ATEN_CPU_CAPABILITY", "").lower() in ("default", "avx2", "zvector", "vsx", "sve256"):
        return 32
    return 64 if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags() else 32


def aten_fma() -> bool:
    """Whether torch's CPU kernels here are builds that fuse ``a * b + c`` into one rounding: its AVX2 and
    AVX512 builds are compiled with FMA (and GCC contracts), its DEFAULT build for x86 (a CPU without AVX2/FMA,
    or ``ATEN_CPU_CAPABILITY=default``) is not; other architectures have FMA in their base instruction set.

    >>> aten_fma() in (True, False)
    True
    """
    if platform.machine().lower() not in ("x86_64", "amd64", "i386", "i686", "x86"):
        return True
    if os.environ.get("ATEN_CPU_CAPABILITY", "").lower() == "default":
        return False
    f = flags()
    return not f or {"avx2", "fma"} <= f
