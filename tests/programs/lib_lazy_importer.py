"""lazy-importer: ``import torch`` / ``from torch import nn`` / ``import torch.nn.functional as F`` deferred with
``__lazy_modules__`` until first use; a module class built on a lazy ``nn.Module`` base (``__mro_entries__``),
isinstance checks through ``resolve``, dtype and function attributes reached through the proxies, training."""
import sys

from lazy_importer import lazy_importer, resolve

__lazy_modules__ = {"torch", "torch.nn.functional", "torch.optim"}

with lazy_importer():
    import torch
    import torch.nn.functional as F
    from torch import nn, optim
    from torch.optim import lr_scheduler

print("proxy before use", type(torch).__name__, type(F).__name__, type(lr_scheduler).__name__)
torch.manual_seed(0)
print("proxy after use", type(torch).__name__, "torch" in sys.modules)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return F.log_softmax(self.fc(x), dim=-1)


net = Net()
print("mro", [c.__name__ for c in type(net).__mro__[:3]], isinstance(net, resolve(nn).Module))
x = torch.randn(8, 4, dtype=torch.float32)
y = torch.tensor([0, 1, 2, 1, 0, 2, 2, 1])
opt = optim.SGD(net.parameters(), lr=0.5, momentum=0.9)
sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for step in range(4):
    opt.zero_grad()
    loss = F.nll_loss(net(x), y)
    loss.backward()
    opt.step()
    sched.step()
    print(f"step {step} loss {loss.item():.5f} lr {sched.get_last_lr()[0]:.4f}")
t = torch.arange(6).reshape(2, 3)
print("tensor", isinstance(t, resolve(torch).Tensor), t.dtype == torch.int64, t.sum().item(), torch.is_tensor(t))
print("F.relu", F.relu(torch.tensor([-1.0, 2.0])).tolist(), callable(F.gelu))
