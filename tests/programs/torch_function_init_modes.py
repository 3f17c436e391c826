"""A TorchFunctionMode that watches and skips torch.nn.init (Lightning's _EmptyInit idiom, which matches
``func.__module__ == "torch.nn.init"``), and the ``__module__`` of torch's public functions."""
import torch
import torch.nn.functional as F

seen = []


class Spy(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__module__", None) == "torch.nn.init":
            seen.append(func.__name__)
        return func(*args, **(kwargs or {}))


class SkipInit(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if getattr(func, "__module__", None) == "torch.nn.init":
            return kwargs["tensor"] if "tensor" in kwargs else args[0]
        return func(*args, **kwargs)


with Spy():
    torch.nn.Linear(3, 2)
    torch.nn.Conv2d(2, 2, 3)
    torch.nn.init.xavier_uniform_(torch.empty(2, 2))  # not dispatched by torch
    torch.nn.init.normal_(torch.empty(2), std=2.0)
    torch.nn.init.constant_(torch.empty(2), 0.5)
print(seen)
torch.manual_seed(0)
with SkipInit():
    m = torch.nn.Linear(3, 2)
    torch.nn.init.constant_(m.bias, 7.0)
print(tuple(m.weight.shape), 7.0 in m.bias.tolist())
torch.manual_seed(0)
print(round(torch.nn.Linear(3, 2).weight.sum().item(), 5))  # the stream after a skipped init is torch's
for f in (torch.nn.init.normal_, torch.nn.init.kaiming_normal_, F.relu,
          F.cross_entropy, F.pad, torch.nn.utils.clip_grad_norm_):
    print(f.__name__, f.__module__)
