"""torchviz: make_dot walks an output's autograd graph (grad_fn.next_functions, AccumulateGrad.variable, the
base of a view) and a custom Function's ``saved_tensors`` read on its node; the graph source is printed with the tensors' and nodes' ids replaced by their order of first appearance."""
import re

import torch
import torch.nn.functional as F
from torchviz import make_dot


def canon(dot):
    """The graph source with each id() number renamed to its order of first appearance."""
    names = {}

    def rename(m):
        return "n%d" % names.setdefault(m.group(0), len(names))

    return [re.sub(r"\b\d{6,}\b", rename, line.rstrip()) for line in dot.source.splitlines()]


def show(title, dot):
    lines = canon(dot)
    print(title, len(lines), len(dot.body))
    for line in lines:
        print("  ", line)


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))
x = torch.randn(5, 4)
y = model(x)
show("mlp", make_dot(y.mean(), params=dict(model.named_parameters())))

# a graph with a view output, several outputs, and a saved-attribute table
a = torch.randn(3, 4, requires_grad=True)
b = torch.randn(4, requires_grad=True)
c = (a * b).sum(1)
d = a.t()[1]
show("multi", make_dot((c, d), params={"a": a, "b": b}))
show("softmax", make_dot(F.softmax(a @ b.unsqueeze(1), dim=0).pow(2).sum(), params={"a": a, "b": b}))
conv = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.BatchNorm2d(3), torch.nn.ReLU(), torch.nn.Flatten(),
                           torch.nn.Linear(12, 2))
show("cnn", make_dot(conv(torch.randn(2, 2, 4, 4)).sum(), params=dict(conv.named_parameters())))


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


e = Square.apply(a).exp().sum()
show("custom", make_dot(e, params={"a": a}))
