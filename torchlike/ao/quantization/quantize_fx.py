"""torch.ao.quantization.quantize_fx: FX graph mode quantization, not supported (each function raises a
NotImplementedError naming it; eager mode -- ``prepare``/``convert`` -- works).

>>> import torchlike
>>> torchlike.ao.quantization.quantize_fx.__name__
'torchlike.ao.quantization.quantize_fx'
"""
from ..._missing import module_getattr

__all__ = ["prepare_fx", "prepare_qat_fx", "convert_fx", "convert_to_reference_fx", "fuse_fx"]


def _fx_unsupported(name):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"torch.ao.quantization.quantize_fx.{name} (FX graph mode quantization) is not "
                                  "implemented in torchlike; eager mode (prepare/convert) is (see "
                                  "docs/differences.md)")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Not supported: FX graph mode quantization ({name})."
    return fn


prepare_fx, prepare_qat_fx, convert_fx, convert_to_reference_fx, fuse_fx = (_fx_unsupported(n) for n in __all__)

__getattr__ = module_getattr("torch.ao.quantization.quantize_fx")
