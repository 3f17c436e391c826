"""Hooks, checkpointing and parametrizations in a training loop: forward/pre/full-backward hooks for feature
extraction, a tensor hook and post-accumulate-grad hooks printing as gradients arrive (their order is torch's
engine order: a convolution's weight before its bias, linear's bias before its weight), checkpoint and
checkpoint_sequential (non-reentrant), weight_norm/spectral_norm parametrizations and their removal, module
train/eval/requires_grad_/double/half round trips, get_submodule, slicing Sequential."""
import torch
from torch import nn
from torch.nn.utils import parametrizations as P, parametrize
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = P.weight_norm(nn.Conv2d(1, 4, 3, padding=1))
        self.c2 = P.spectral_norm(nn.Conv2d(4, 4, 3, padding=1))
        self.seq = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU())
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        x = torch.relu(self.c1(x))
        x = checkpoint(lambda t: torch.relu(self.c2(t)), x, use_reentrant=False)
        x = x.mean((2, 3))
        x = checkpoint_sequential(self.seq, 2, x, use_reentrant=False)
        return self.fc(x)


net = Net()
print(net)
print([n for n, _ in net.named_parameters()])
print(sorted(net.state_dict().keys()))
feats, grads = {}, []
h = net.seq[1].register_forward_hook(lambda m, i, o: feats.__setitem__("relu1", o.detach()))
hp = net.fc.register_forward_pre_hook(lambda m, args: print("pre", args[0].shape))
hb = net.fc.register_full_backward_hook(lambda m, gi, go: grads.append((gi[0].shape, go[0].shape, round(go[0].abs().sum().item(), 4))))
ht = net.seq[0].weight.register_hook(lambda g: print("wgrad", g.shape, f"{g.norm():.5f}"))
hpa = net.c1.parametrizations.weight.original0.register_post_accumulate_grad_hook(lambda p: print("acc", p.grad.shape))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(3, 1, 6, 6)
y = torch.tensor([0, 1, 1])
for i in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(net(x), y)
    loss.backward()
    opt.step()
    print(i, f"{loss.item():.5f}", feats["relu1"].sum().item() > 0, grads[-1])
    if i == 0:
        hp.remove()
h.remove(); hb.remove(); ht.remove(); hpa.remove()
print(net.c1.weight.shape, torch.linalg.matrix_norm(net.c2.weight.flatten(1), ord=2) < 1.5, parametrize.is_parametrized(net.c1))
w = net.c1.weight.detach().clone()
parametrize.remove_parametrizations(net.c1, "weight")
print(torch.allclose(net.c1.weight, w), parametrize.is_parametrized(net.c1), type(net.c1.weight).__name__)
net.eval()
print(net.training, net.seq.training, net(x).shape)
net.train(False)
net.requires_grad_(False)
print(sum(p.requires_grad for p in net.parameters()))
d = net.double()
print(d.fc.weight.dtype, d(x.double()).dtype)
net.half().float()
print(net.fc.weight.dtype)
net.zero_grad()
print(all(p.grad is None for p in net.parameters()))
print(nn.utils.parameters_to_vector(net.parameters()).shape)
sd = net.state_dict()
print(list(sd)[:5])
mods = dict(net.named_children())
print(list(mods), net.get_submodule("seq.2"), net.get_parameter("fc.bias").shape)
n2 = nn.Sequential(*list(net.seq.children())[:-1])
print(n2, len(net.seq), net.seq[-1], net.seq[1:])


torch.manual_seed(0)
c1 = nn.Conv2d(1, 2, 3, padding=1)
seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2, bias=False))
names = {}
for pre, mod in [("c1", c1), ("seq", seq)]:
    for pn, p in mod.named_parameters():
        p.register_post_accumulate_grad_hook(lambda p, n=pre + "." + pn: order.append(n))
x = torch.randn(3, 1, 4, 4, requires_grad=True)
x.register_post_accumulate_grad_hook(lambda p: order.append("x"))
for it in range(4):  # the first passes run node by node, later ones as one fused program
    order = []
    h = torch.relu(c1(x)).mean((2, 3))
    (seq(h) - 1).square().sum().backward()
    print(it, order)
print("AccumulateGrad seq", x.sum().grad_fn.next_functions[0][0]._sequence_nr())
