"""torch.backends.cpu: the CPU vector capability. torchlike runs CPU kernels through XLA, not ATen's
vectorized kernels, so it reports ``"DEFAULT"`` (libraries then take their portable code paths, e.g.
torchvision resizes uint8 images through float32).

>>> import torchlike
>>> torchlike.backends.cpu.get_cpu_capability()
'DEFAULT'
"""
__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """The ATen CPU capability torch would dispatch to; torchlike has none beyond ``"DEFAULT"``."""
    return "DEFAULT"

