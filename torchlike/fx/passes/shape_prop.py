"""torchlike.fx.passes.shape_prop: ``ShapeProp`` runs a GraphModule on example inputs and records each node's
tensor metadata (shape, dtype, stride, ...) in ``node.meta["tensor_meta"]``."""
from __future__ import annotations

from typing import Any, NamedTuple

from ..._memory_format import channels_last, channels_last_3d, contiguous_format
from ...tensor import Tensor
from ..interpreter import Interpreter
from ..node import map_aggregate

__all__ = ["ShapeProp", "TensorMetadata"]


class TensorMetadata(NamedTuple):
    """What ShapeProp records of a tensor value (torch's fields).

    >>> import torchlike
    >>> from torchlike.fx.passes.shape_prop import _extract_tensor_metadata
    >>> _extract_tensor_metadata(torchlike.ones(2, 3)).stride
    (3, 1)
    """
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result):
    memory_format = None
    for fmt in (contiguous_format, channels_last, channels_last_3d):
        if result.is_contiguous(memory_format=fmt):
            memory_format = fmt
            break
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(), memory_format,
                          False, {})


class ShapeProp(Interpreter):
    """Run ``gm`` on example inputs (``propagate``), storing each tensor result's ``TensorMetadata`` in
    ``node.meta["tensor_meta"]`` and its Python type in ``node.meta["type"]`` (torch.fx.passes.shape_prop).

    >>> import torchlike
    >>> from torchlike.fx.passes.shape_prop import ShapeProp
    >>> gm = torchlike.fx.symbolic_trace(torchlike.nn.Linear(3, 2))
    >>> _ = ShapeProp(gm).propagate(torchlike.ones(4, 3))
    >>> [tuple(n.meta["tensor_meta"].shape) for n in gm.graph.nodes]
    [(4, 3), (2, 3), (2,), (4, 2), (4, 2)]
    """

    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)
        self.fake_mode = fake_mode

    def run_node(self, n):
        result = super().run_node(n)
        found = []

        def extract(obj):
            if isinstance(obj, Tensor):
                found.append(True)
                return _extract_tensor_metadata(obj)
            return obj
        meta = map_aggregate(result, extract)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Run the module on ``args`` (recording metadata); returns its result."""
        return super().run(*args)
