"""Pruning Tutorial (torch.nn.utils.prune: random/l1 unstructured, ln_structured, masks as buffers and
forward pre-hooks, iterative pruning, prune.remove, global_unstructured, a custom PruningMethod) and
Parametrizations Tutorial (register_parametrization, Symmetric/SkewSymmetric, right_inverse, cached,
orthogonal and spectral_norm), with module forward and full backward hooks."""
import torch
import torch.nn.functional as F
import torch.nn.utils.parametrize as parametrize
from torch import nn
from torch.nn.utils import prune

torch.manual_seed(0)


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


model = LeNet()
module = model.conv1
print(list(module.named_parameters())[1], list(module.named_buffers()))
prune.random_unstructured(module, name="weight", amount=0.3)
print([n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()])
print(module.weight_mask.sum(), module.weight[0])
print(module._forward_pre_hooks.__class__.__name__, len(module._forward_pre_hooks))
prune.l1_unstructured(module, name="bias", amount=3)
print(module.bias, module.bias_mask)
prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
print(module.weight_mask.sum(dim=(1, 2, 3)))
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":
        break
print([type(h).__name__ for h in hook], hook.__class__.__name__, type(hook).__module__)
print(model.state_dict().keys())
prune.remove(module, 'weight')
print([n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()])
new_model = LeNet()
for name, module in new_model.named_modules():
    if isinstance(module, torch.nn.Conv2d):
        prune.l1_unstructured(module, name='weight', amount=0.2)
    elif isinstance(module, torch.nn.Linear):
        prune.l1_unstructured(module, name='weight', amount=0.4)
print(dict(new_model.named_buffers()).keys())
model = LeNet()
parameters_to_prune = ((model.conv1, 'weight'), (model.conv2, 'weight'), (model.fc1, 'weight'),
                       (model.fc2, 'weight'), (model.fc3, 'weight'))
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
for m, n in parameters_to_prune:
    print("Sparsity in {}: {:.2f}%".format(type(m).__name__, 100. * float(torch.sum(m.weight == 0)) / float(m.weight.nelement())))
print("Global sparsity: {:.2f}%".format(100. * float(sum(torch.sum(m.weight == 0) for m, _ in parameters_to_prune))
                                        / float(sum(m.weight.nelement() for m, _ in parameters_to_prune))))


class FooBarPruningMethod(prune.BasePruningMethod):
    PRUNING_TYPE = 'unstructured'

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


model = LeNet()
foobar_unstructured(model.fc3, name='bias')
print(model.fc3.bias_mask)
x = torch.randn(4, 1, 28, 28)
out = model(x)
out.sum().backward()
print(model.fc3.bias_orig.grad, prune.is_pruned(model), prune.is_pruned(LeNet()))


# ---- parametrizations
def symmetric(X):
    return X.triu() + X.triu(1).transpose(-1, -2)


X = torch.rand(3, 3)
A = symmetric(X)
assert torch.allclose(A, A.T)
print(A)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Symmetric())
A = layer.weight
assert torch.allclose(A, A.T)
print(A)
print(layer)
print(layer.parametrizations.weight.original)
print(parametrize.is_parametrized(layer), parametrize.is_parametrized(layer, "bias"))


class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)


cnn = nn.Conv2d(in_channels=5, out_channels=8, kernel_size=3)
parametrize.register_parametrization(cnn, "weight", Skew())
print(cnn.weight[0, 1])


class CayleyMap(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("Id", torch.eye(n))

    def forward(self, X):
        return torch.linalg.solve(self.Id - X, self.Id + X)


layer = nn.Linear(3, 3)
parametrize.register_parametrization(layer, "weight", Skew())
parametrize.register_parametrization(layer, "weight", CayleyMap(3))
X = layer.weight
print(torch.dist(X.T @ X, torch.eye(3)) < 1e-5)
print(layer.parametrizations.weight)
with parametrize.cached():
    p1 = layer.weight
    p2 = layer.weight
    print(p1 is p2)
print(layer.weight is layer.weight)


class NoisyParametrization(nn.Module):
    def forward(self, X):
        return X

    def right_inverse(self, A):
        return A + 0.0


layer = nn.Linear(2, 2)
parametrize.register_parametrization(layer, "weight", NoisyParametrization())
layer.weight = torch.tensor([[1., 2.], [3., 4.]])
print(layer.parametrizations.weight.original)
parametrize.remove_parametrizations(layer, "weight", leave_parametrized=True)
print(layer.weight, type(layer.weight).__name__, list(dict(layer.named_parameters())))
lin = nn.utils.parametrizations.orthogonal(nn.Linear(4, 4))
Q = lin.weight
print(torch.allclose(Q @ Q.T, torch.eye(4), atol=1e-5), [n for n, _ in lin.named_parameters()])
sn = nn.utils.parametrizations.spectral_norm(nn.Linear(5, 3))
print([n for n, _ in sn.named_parameters()], [n for n, _ in sn.named_buffers()])
sn.train()
for _ in range(5):
    w = sn.weight
print(f"{torch.linalg.matrix_norm(w, 2).item():.4f}")

# ---- module hooks
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
seen = []
h1 = net[0].register_forward_hook(lambda m, i, o: seen.append(("fwd", type(m).__name__, tuple(o.shape))))
h2 = net[2].register_full_backward_hook(lambda m, gi, go: seen.append(("bwd", len(gi), tuple(go[0].shape))))
h3 = net[1].register_forward_pre_hook(lambda m, i: (i[0] * 2,))
out = net(torch.randn(3, 4))
out.sum().backward()
print(seen, f"{out.sum().item():.4f}")
for h in (h1, h2, h3):
    h.remove()
print(len(net[0]._forward_hooks), len(net[1]._forward_pre_hooks), f"{net(torch.ones(1, 4)).sum().item():.4f}")
