"""Python side effects inside a compiled function happen once per call, as under torch.compile: before a graph
break (the call then runs eagerly), with no break (the program cannot repeat them), on a retrace for a new
shape, and before an error. Prints the side effects and results of three calls of each."""
import torch

LOG = []
count = 0
SHAPES = []


def print_then_break(x):
    print("print_then_break: before")
    y = x * 2
    if y.sum() > 0:  # a graph break (data-dependent branch)
        y = y + 1
    print("print_then_break: after")
    return y


def append_then_break(x):
    LOG.append("append_then_break")
    y = x * 2
    if y.sum() > 0:
        y = y + 1
    return y


def count_then_break(x):
    global count
    count += 1
    y = x * 2
    if y.sum() > 0:
        y = y + 1
    return y


def print_no_break(x):
    print("print_no_break", x.shape[0])
    return x + 1


def append_no_break(x):
    LOG.append("append_no_break")
    return x + 1


def count_no_break(x):
    global count
    count += 10
    return x + 1


def helper(tag):
    LOG.append(tag)


def append_through_a_helper(x):
    helper("helper")
    return x * 3


def closure_counter():
    n = 0

    def f(x):
        nonlocal n
        n += 1
        return x - n
    return f, lambda: n


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)

    def forward(self, x):
        LOG.append("Net.forward")
        return self.lin(x).relu()


for fn in (print_then_break, append_then_break, count_then_break, print_no_break, append_no_break,
           count_no_break, append_through_a_helper):
    c = torch.compile(fn)
    for _ in range(3):
        r = c(torch.ones(3))
    print(fn.__name__, r.tolist(), len(LOG), count)

f, read = closure_counter()
c = torch.compile(f)
print("closure", [c(torch.ones(2)).tolist() for _ in range(3)], read())

torch.manual_seed(0)
net = torch.compile(Net())
outs = [net(torch.ones(1, 3)).shape for _ in range(3)]
print("module", outs, LOG.count("Net.forward"))


def per_shape(x):
    SHAPES.append(x.shape[0])
    return x * int(x.shape[0])


c = torch.compile(per_shape)
print("shapes", [c(torch.ones(n)).sum().item() for n in (3, 4, 5, 6)], SHAPES)


def print_then_error(x):
    print("print_then_error")
    return x @ torch.ones(5)


try:
    torch.compile(print_then_error)(torch.ones(3))
except RuntimeError as e:
    print("error", isinstance(e, RuntimeError))  # (torch: torch._dynamo.exc.TorchRuntimeError, a RuntimeError)

try:
    torch.compile(print_no_break, fullgraph=True)(torch.ones(2))
except Exception as e:
    print("fullgraph print:", type(e).__name__)

c = torch.compile(append_no_break, fullgraph=True)
print("fullgraph append", [c(torch.ones(2)).tolist() for _ in range(2)], LOG.count("append_no_break"))

SEEN = []


def keeps_a_tensor(x):
    y = x * 2
    SEEN.append(y)  # a tensor kept in Python state (the trace's would be a tracer)
    return y + 1


c = torch.compile(keeps_a_tensor)
print("kept tensors", [c(torch.ones(2)).tolist() for _ in range(2)], [t.tolist() for t in SEEN])


def marks(x):
    LOG.append(torch.compiler.is_compiling())
    return x + 1


torch.compile(marks)(torch.ones(1))
print("is_compiling on the first call", LOG[-1])
