"""torch.onnx.symbolic_opset11: importable (libraries name it in their symbolic functions); torchlike exports
no ONNX graph, so each of its functions raises a NotImplementedError naming it.

>>> from torchlike.onnx import symbolic_opset11
>>> symbolic_opset11.__name__
'torchlike.onnx.symbolic_opset11'
"""
from .._missing import module_getattr

__getattr__ = module_getattr("torch.onnx.symbolic_opset11")
