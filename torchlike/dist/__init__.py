"""Data parallelism on JAX's distributed runtime (see the distributed issue; the public API is
``torchlike.distributed``).

Importing this package makes ``torchlike.dist`` refer to it, but ``torch.dist`` is also an op (the
p-norm distance), so the package is callable and calls that op:

>>> import torchlike
>>> import torchlike.dist
>>> torchlike.dist(torchlike.tensor([1., 1.]), torchlike.tensor([4., 5.]))
tensor(5.)
"""
import sys as _sys
import types as _types


class _CallableModule(_types.ModuleType):
    def __call__(self, input, other, p=2):
        from .._ops.reduction import dist
        return dist(input, other, p)


_sys.modules[__name__].__class__ = _CallableModule
