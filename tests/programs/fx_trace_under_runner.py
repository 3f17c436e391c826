"""torch.fx under the drop-in runner (torchlike classes carry torch's module names there): trace a module with a leaf
Linear, a functional, an attribute read and math.sqrt, print the code, propagate shapes, interpret."""
import math
import torch
import torch.fx
from torch.fx import symbolic_trace, Interpreter
from torch.fx.passes.shape_prop import ShapeProp
from torch.fx.node import Node
from torch.fx.graph_module import GraphModule
import torch.nn.functional as F

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
    def forward(self, x):
        return F.relu(self.fc(x), inplace=False) / math.sqrt(x.shape[-1])
torch.manual_seed(0)
gm = symbolic_trace(Net())
print(gm.code)
x = torch.randn(2, 4)
ShapeProp(gm).propagate(x)
for n in gm.graph.nodes:
    print(n.name, n.op, n.meta.get("tensor_meta", (None,))[0] if "tensor_meta" in n.meta else None)
print(all(isinstance(n, Node) for n in gm.graph.nodes), isinstance(gm, GraphModule))
print(torch.allclose(gm(x), Interpreter(gm).run(x)), isinstance(gm, torch.nn.Module), type(gm.graph).__module__.split(".")[-1])
