"""torch._inductor.utils: the two dtype-name helpers that optimizer libraries with Triton kernels import at load
time (torch-optimi builds its dtype table with them whenever triton is installed). Inductor itself has no
counterpart here; these only translate between torch dtypes and Triton's ``tl.*`` type names, as torch's do.

>>> import torchlike
>>> from torchlike._inductor.utils import triton_type, triton_type_to_torch
>>> triton_type(torchlike.bool), triton_type_to_torch("tl.bfloat16")
('tl.int1', torch.bfloat16)
"""
from __future__ import annotations

from .. import _dtype

# Triton's names for the dtypes whose Triton spelling is not torch's with "tl." in front
_TO_TRITON = {"tl.bool": "tl.int1", "tl.float8_e4m3fn": "tl.float8e4nv", "tl.float8_e5m2": "tl.float8e5",
              "tl.float8_e4m3fnuz": "tl.float8e4b8", "tl.float8_e5m2fnuz": "tl.float8e5b16",
              "tl.float8_e8m0fnu": "tl.uint8", "tl.float4_e2m1fn_x2": "tl.uint8"}
# and back: several torch dtypes share tl.uint8, which reads back as the packed float4 type (as torch's table)
_FROM_TRITON = {"tl.int1": "tl.bool", "tl.float8e4nv": "tl.float8_e4m3fn", "tl.float8e5": "tl.float8_e5m2",
                "tl.float8e4b8": "tl.float8_e4m3fnuz", "tl.float8e5b16": "tl.float8_e5m2fnuz",
                "tl.uint8": "tl.float4_e2m1fn_x2"}


def triton_type(dtype):
    """The Triton type name of torch dtype ``dtype`` (``torch.float32`` -> ``'tl.float32'``)."""
    name = "tl." + str(dtype).rsplit(".", 1)[-1]
    return _TO_TRITON.get(name, name)


def triton_type_to_torch(dtype):
    """The torch dtype a Triton type name (``'tl.float32'`` or ``'float32'``) stands for; an unknown name raises
    torch's AttributeError (module 'torch' has no attribute ...)."""
    import torchlike  # lazy: torch.<name> as the facade has it (aliases too), built after this module
    name = _FROM_TRITON.get(dtype, dtype).replace("tl.", "")
    try:
        out = getattr(torchlike, name)
    except AttributeError:  # (torchlike's "not implemented" for a name torch lacks too)
        raise AttributeError(f"module 'torch' has no attribute '{name}'") from None
    assert isinstance(out, _dtype.dtype)
    return out
