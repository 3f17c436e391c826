"""``torch.distributions`` the way RL and density-model code uses it (own code, synthetic data):
a SAC-style squashed Gaussian actor (``TransformedDistribution(Independent(Normal), [TanhTransform(cache_size=1)])``,
``rsample`` + ``log_prob`` of the same sample, a learned temperature), a discrete actor-critic with
``Categorical`` entropy bonus and advantage normalisation, a mixture density network trained by
``MixtureSameFamily(Categorical, Independent(Normal))`` log-likelihood, and ``kl_divergence`` between
Normals, Categoricals and a ``MultivariateNormal`` with ``scale_tril``; ``Beta``/``Dirichlet`` ``rsample``
gradients and ``constraints``/``transform_to``."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import (Beta, Categorical, Dirichlet, Independent, MixtureSameFamily, MultivariateNormal,
                                 Normal, TransformedDistribution, constraints, kl_divergence, transform_to)
from torch.distributions.transforms import AffineTransform, TanhTransform

torch.manual_seed(0)


# ---- SAC-style squashed Gaussian actor -------------------------------------------------------------------
class Actor(nn.Module):
    def __init__(self, obs, act):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs, 32), nn.ReLU(), nn.Linear(32, 2 * act))

    def forward(self, s):
        mu, log_std = self.net(s).chunk(2, dim=-1)
        log_std = log_std.clamp(-5, 2)
        base = Independent(Normal(mu, log_std.exp()), 1)
        return TransformedDistribution(base, [TanhTransform(cache_size=1), AffineTransform(0.0, 2.0)])


actor = Actor(4, 2)
critic = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 1))
log_alpha = torch.zeros(1, requires_grad=True)
opt_a = torch.optim.Adam(actor.parameters(), lr=3e-3)
opt_alpha = torch.optim.Adam([log_alpha], lr=3e-3)
target_entropy = -2.0
for it in range(6):
    s = torch.randn(64, 4)
    dist = actor(s)
    a = dist.rsample()
    logp = dist.log_prob(a)
    q = critic(torch.cat([s, a], -1)).squeeze(-1)
    alpha = log_alpha.exp()
    loss_actor = (alpha.detach() * logp - q).mean()
    opt_a.zero_grad()
    loss_actor.backward()
    opt_a.step()
    loss_alpha = -(log_alpha * (logp.detach() + target_entropy)).mean()
    opt_alpha.zero_grad()
    loss_alpha.backward()
    opt_alpha.step()
    print(f"sac {it} actor {loss_actor.item():.5f} logp {logp.mean().item():.5f} alpha {alpha.item():.5f} "
          f"|a|max {a.abs().max().item():.4f}")

# ---- discrete actor-critic with an entropy bonus ---------------------------------------------------------
policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))
value = nn.Linear(4, 1)
opt = torch.optim.RMSprop(list(policy.parameters()) + list(value.parameters()), lr=1e-2, alpha=0.99, eps=1e-5)
for it in range(5):
    s = torch.randn(32, 4)
    pi = Categorical(logits=policy(s))
    act = pi.sample()
    reward = (act == (s[:, 0] > 0).long()).float()
    v = value(s).squeeze(-1)
    adv = reward - v.detach()
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    loss = -(pi.log_prob(act) * adv).mean() + 0.5 * F.smooth_l1_loss(v, reward) - 0.01 * pi.entropy().mean()
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
    opt.step()
    print(f"a2c {it} loss {loss.item():.5f} reward {reward.mean().item():.4f} entropy {pi.entropy().mean().item():.5f}")


# ---- mixture density network --------------------------------------------------------------------------------
class MDN(nn.Module):
    def __init__(self, k=3, d=2):
        super().__init__()
        self.k, self.d = k, d
        self.body = nn.Sequential(nn.Linear(1, 32), nn.Tanh())
        self.pi, self.mu, self.sigma = nn.Linear(32, k), nn.Linear(32, k * d), nn.Linear(32, k * d)

    def forward(self, x):
        h = self.body(x)
        mix = Categorical(logits=self.pi(h))
        comp = Independent(Normal(self.mu(h).view(-1, self.k, self.d),
                                  F.softplus(self.sigma(h)).view(-1, self.k, self.d) + 1e-3), 1)
        return MixtureSameFamily(mix, comp)


mdn = MDN()
opt = torch.optim.Adam(mdn.parameters(), lr=1e-2)
x = torch.rand(128, 1) * 2 - 1
y = torch.cat([torch.sin(3 * x), torch.cos(3 * x)], 1) + 0.1 * torch.randn(128, 2)
for it in range(30):
    nll = -mdn(x).log_prob(y).mean()
    opt.zero_grad()
    nll.backward()
    opt.step()
    if it % 10 == 9:
        print(f"mdn {it} nll {nll.item():.5f}")
with torch.no_grad():
    d = mdn(torch.zeros(1, 1))
    print(f"mdn mean {d.mean[0].tolist()[0]:.5f} var {d.variance[0].tolist()[0]:.5f} "
          f"sample shape {tuple(d.sample((5,)).shape)}")

# ---- KL divergences, reparameterised gradients, constraints ---------------------------------------------------
p, q = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])), Normal(torch.tensor([0.5, 0.0]), 1.5)
print("kl normal", [f"{v:.6f}" for v in kl_divergence(p, q).tolist()])
c1, c2 = Categorical(probs=torch.tensor([0.2, 0.3, 0.5])), Categorical(logits=torch.tensor([0.0, 1.0, -1.0]))
print(f"kl categorical {kl_divergence(c1, c2).item():.6f}")
L = torch.tensor([[1.0, 0.0], [0.5, 2.0]])
mvn = MultivariateNormal(torch.zeros(2), scale_tril=L)
mvn2 = MultivariateNormal(torch.ones(2), covariance_matrix=torch.eye(2) * 2)
print(f"kl mvn {kl_divergence(mvn, mvn2).item():.6f} logp {mvn.log_prob(torch.tensor([1.0, -1.0])).item():.6f} "
      f"entropy {mvn.entropy().item():.6f}")
conc = torch.tensor([2.0, 3.0], requires_grad=True)
b = Beta(conc[0], conc[1])
torch.manual_seed(1)
sample = b.rsample((200,))
sample.mean().backward()
# the gradients themselves are a documented difference (docs/differences.md: torch's _dirichlet_grad
# approximation vs the exact gradient of the same gamma draws), so only their presence and shape are printed
print(f"beta rsample mean {sample.mean().item():.5f} grad {tuple(conc.grad.shape)}")
alpha_d = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
dsample = Dirichlet(alpha_d).rsample((100,))
(dsample[:, 0]).mean().backward()
print(f"dirichlet mean0 {dsample[:, 0].mean().item():.5f} grad {tuple(alpha_d.grad.shape)}")
t = transform_to(constraints.positive)
u = torch.tensor([-1.0, 0.0, 2.0])
print("transform_to positive", [f"{v:.5f}" for v in t(u).tolist()],
      f"ladj {t.log_abs_det_jacobian(u, t(u)).sum().item():.5f}",
      constraints.simplex.check(torch.tensor([0.2, 0.8])).item())
