"""Three compact re-creations (own code, synthetic data): gram-ai/capsule-networks-style ``CapsuleLayer`` with
dynamic routing (``route_weights`` of 4 dims, ``x[None, :, :, None, :] @ self.route_weights[:, None, :, :, :]``,
``squash`` with ``squared_norm / (1 + squared_norm) * tensor / torch.sqrt(squared_norm)``, ``Variable(torch.
zeros(*priors.size()))``, softmax over the routing dimension, ``(priors * probs).sum(dim=2, keepdim=True)``),
margin loss (``F.relu(0.9 - lengths) ** 2``) and the reconstruction masked by ``torch.eye(...).index_select``;
a Gumbel-softmax categorical VAE (YongfeiYan/Gumbel_Softmax_VAE: ``F.gumbel_softmax(logits, tau, hard=True)``,
the straight-through ``(y_hard - y).detach() + y``, ``sample_gumbel`` with ``torch.rand`` and ``-torch.log(-torch.
log(U + eps) + eps)``, KL to the uniform prior, temperature annealing ``np.maximum(temp * np.exp(-ANNEAL_RATE *
batch_idx), temp_min)``); and a MAML-style inner loop with ``torch.func.functional_call`` + ``torch.autograd.grad(
create_graph=True)`` over a ``dict`` of named parameters, and ``torch.func.vmap(grad(...))`` per-task gradients."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
np.random.seed(0)


def softmax(input, dim=1):
    transposed_input = input.transpose(dim, len(input.size()) - 1)
    softmaxed_output = F.softmax(transposed_input.contiguous().view(-1, transposed_input.size(-1)), dim=-1)
    return softmaxed_output.view(*transposed_input.size()).transpose(dim, len(input.size()) - 1)


class CapsuleLayer(nn.Module):
    def __init__(self, num_capsules, num_route_nodes, in_channels, out_channels, kernel_size=None, stride=None,
                 num_iterations=3):
        super(CapsuleLayer, self).__init__()
        self.num_route_nodes = num_route_nodes
        self.num_iterations = num_iterations
        self.num_capsules = num_capsules
        if num_route_nodes != -1:
            self.route_weights = nn.Parameter(torch.randn(num_capsules, num_route_nodes, in_channels, out_channels))
        else:
            self.capsules = nn.ModuleList(
                [nn.Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=0) for _ in
                 range(num_capsules)])

    def squash(self, tensor, dim=-1):
        squared_norm = (tensor ** 2).sum(dim=dim, keepdim=True)
        scale = squared_norm / (1 + squared_norm)
        return scale * tensor / torch.sqrt(squared_norm)

    def forward(self, x):
        if self.num_route_nodes != -1:
            priors = x[None, :, :, None, :] @ self.route_weights[:, None, :, :, :]
            logits = Variable(torch.zeros(*priors.size()))
            for i in range(self.num_iterations):
                probs = softmax(logits, dim=2)
                outputs = self.squash((probs * priors).sum(dim=2, keepdim=True))
                if i != self.num_iterations - 1:
                    delta_logits = (priors * outputs).sum(dim=-1, keepdim=True)
                    logits = logits + delta_logits
        else:
            outputs = [capsule(x).view(x.size(0), -1, 1) for capsule in self.capsules]
            outputs = torch.cat(outputs, dim=-1)
            outputs = self.squash(outputs)
        return outputs


class CapsuleNet(nn.Module):
    def __init__(self, num_classes=3):
        super(CapsuleNet, self).__init__()
        self.conv1 = nn.Conv2d(in_channels=1, out_channels=16, kernel_size=3, stride=1)
        self.primary_capsules = CapsuleLayer(num_capsules=4, num_route_nodes=-1, in_channels=16, out_channels=4,
                                             kernel_size=3, stride=2)
        self.digit_capsules = CapsuleLayer(num_capsules=num_classes, num_route_nodes=4 * 3 * 3, in_channels=4,
                                           out_channels=8)
        self.decoder = nn.Sequential(nn.Linear(8 * num_classes, 32), nn.ReLU(inplace=True), nn.Linear(32, 100),
                                     nn.Sigmoid())

    def forward(self, x, y=None):
        x = F.relu(self.conv1(x), inplace=True)
        x = self.primary_capsules(x)
        x = self.digit_capsules(x).squeeze().transpose(0, 1)
        classes = (x ** 2).sum(dim=-1) ** 0.5
        classes = F.softmax(classes, dim=-1)
        if y is None:
            _, max_length_indices = classes.max(dim=1)
            y = Variable(torch.eye(3)).index_select(dim=0, index=max_length_indices.data)
        reconstructions = self.decoder((x * y[:, :, None]).reshape(x.size(0), -1))
        return classes, reconstructions


class CapsuleLoss(nn.Module):
    def __init__(self):
        super(CapsuleLoss, self).__init__()
        self.reconstruction_loss = nn.MSELoss(reduction='sum')

    def forward(self, images, labels, classes, reconstructions):
        left = F.relu(0.9 - classes, inplace=True) ** 2
        right = F.relu(classes - 0.1, inplace=True) ** 2
        margin_loss = labels * left + 0.5 * (1. - labels) * right
        margin_loss = margin_loss.sum()
        assert torch.numel(images) == torch.numel(reconstructions)
        images = images.view(reconstructions.size()[0], -1)
        reconstruction_loss = self.reconstruction_loss(reconstructions, images)
        return (margin_loss + 0.0005 * reconstruction_loss) / images.size(0)


imgs = torch.rand(6, 1, 10, 10)
lbl = torch.tensor([0, 1, 2, 0, 1, 2])
caps = CapsuleNet()
opt = torch.optim.Adam(caps.parameters(), lr=1e-3)
closs = CapsuleLoss()
for step in range(3):
    y = torch.eye(3).index_select(dim=0, index=lbl)
    classes, recon = caps(imgs, y)
    loss = closs(imgs, y, classes, recon)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("capsnet", step, tuple(classes.shape), tuple(recon.shape), round(loss.item(), 5))
with torch.no_grad():
    classes, recon = caps(imgs)
print("capsnet eval", classes.argmax(1).tolist(), round(recon.mean().item(), 4),
      round(caps.digit_capsules.route_weights.grad.abs().sum().item(), 4))


# ---------------- Gumbel-softmax VAE ----------------
def sample_gumbel(shape, eps=1e-20):
    U = torch.rand(shape)
    return -torch.log(-torch.log(U + eps) + eps)


def gumbel_softmax_sample(logits, temperature):
    y = logits + sample_gumbel(logits.size())
    return F.softmax(y / temperature, dim=-1)


def gumbel_softmax(logits, temperature, latent_dim, categorical_dim, hard=False):
    y = gumbel_softmax_sample(logits, temperature)
    if not hard:
        return y.view(-1, latent_dim * categorical_dim)
    shape = y.size()
    _, ind = y.max(dim=-1)
    y_hard = torch.zeros_like(y).view(-1, shape[-1])
    y_hard.scatter_(1, ind.view(-1, 1), 1)
    y_hard = y_hard.view(*shape)
    y_hard = (y_hard - y).detach() + y
    return y_hard.view(-1, latent_dim * categorical_dim)


class VAE_gumbel(nn.Module):
    def __init__(self, temp, latent_dim=4, categorical_dim=3):
        super(VAE_gumbel, self).__init__()
        self.latent_dim, self.categorical_dim = latent_dim, categorical_dim
        self.fc1 = nn.Linear(16, 32)
        self.fc3 = nn.Linear(32, latent_dim * categorical_dim)
        self.fc4 = nn.Linear(latent_dim * categorical_dim, 32)
        self.fc6 = nn.Linear(32, 16)
        self.relu = nn.ReLU()
        self.sigmoid = nn.Sigmoid()

    def encode(self, x):
        return self.relu(self.fc3(self.relu(self.fc1(x))))

    def decode(self, z):
        return self.sigmoid(self.fc6(self.relu(self.fc4(z))))

    def forward(self, x, temp, hard):
        q = self.encode(x.view(-1, 16))
        q_y = q.view(q.size(0), self.latent_dim, self.categorical_dim)
        z = gumbel_softmax(q_y, temp, self.latent_dim, self.categorical_dim, hard)
        return self.decode(z), F.softmax(q_y, dim=-1).reshape(*q.size())


def loss_function(recon_x, x, qy, categorical_dim=3):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 16), reduction='sum') / x.shape[0]
    log_ratio = torch.log(qy * categorical_dim + 1e-20)
    KLD = torch.sum(qy * log_ratio, dim=-1).mean()
    return BCE + KLD


torch.manual_seed(1)
data = (torch.rand(24, 16) > 0.5).float()
vae = VAE_gumbel(1.0)
optv = torch.optim.Adam(vae.parameters(), lr=1e-3)
temp, temp_min, ANNEAL_RATE = 1.0, 0.5, 0.00003
for batch_idx in range(3):
    x = data[batch_idx * 8:(batch_idx + 1) * 8]
    optv.zero_grad()
    recon_batch, qy = vae(x, temp, hard=batch_idx % 2 == 1)
    loss = loss_function(recon_batch, x, qy)
    loss.backward()
    optv.step()
    temp = np.maximum(temp * np.exp(-ANNEAL_RATE * batch_idx), temp_min)
    print("gumbel vae", batch_idx, round(loss.item(), 4), round(float(temp), 6), type(temp).__name__)
torch.manual_seed(2)
logits = torch.randn(5, 4, requires_grad=True)
hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
soft = F.gumbel_softmax(logits, tau=0.5, hard=False, dim=0)
(hard * torch.arange(4.0)).sum().backward()
print("F.gumbel_softmax", hard.argmax(-1).tolist(), hard.sum(-1).tolist(), [round(v, 4) for v in soft.sum(0).tolist()],
      round(logits.grad.abs().sum().item(), 4))


# ---------------- MAML with torch.func ----------------
torch.manual_seed(3)
net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
meta_opt = torch.optim.Adam(net.parameters(), lr=1e-2)


def task(n, amp, phase):
    xs = torch.rand(n, 1) * 6 - 3
    return xs, amp * torch.sin(xs + phase)


for it in range(3):
    meta_opt.zero_grad()
    total = 0.0
    for amp, phase in [(1.0, 0.0), (2.0, 1.0)]:
        xs, ys = task(10, amp, phase)
        xq, yq = task(10, amp, phase)
        params = dict(net.named_parameters())
        for _ in range(2):
            inner = F.mse_loss(functional_call(net, params, (xs,)), ys)
            grads = torch.autograd.grad(inner, list(params.values()), create_graph=True)
            params = {k: p - 0.1 * g for (k, p), g in zip(params.items(), grads)}
        outer = F.mse_loss(functional_call(net, params, (xq,)), yq)
        outer.backward()
        total += outer.item()
    meta_opt.step()
    print("maml", it, round(total / 2, 4), round(net[0].weight.grad.abs().sum().item(), 4))

params = {k: v.detach() for k, v in net.named_parameters()}


def loss_of(p, x, y):
    return F.mse_loss(functional_call(net, p, (x,)), y)


xb = torch.rand(4, 5, 1)
yb = torch.sin(xb)
per_task = vmap(grad(loss_of), in_dims=(None, 0, 0))(params, xb, yb)
print("vmap grad", sorted(per_task), tuple(per_task["0.weight"].shape),
      round(per_task["2.bias"].sum().item(), 4))
