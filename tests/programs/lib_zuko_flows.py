"""zuko: conditional normalizing flows (MAF, NSF, RealNVP, an exact-trace CNF) trained a few steps by
maximum likelihood on a 2-D toy density with a fixed seed; log-probabilities, samples and rsample gradients."""
import numpy as np
import torch
import zuko

rng = np.random.default_rng(0)
theta = rng.uniform(-1, 1, (256, 3)).astype(np.float32)
xs = np.stack([theta[:, 0] + 0.3 * rng.standard_normal(256),
               theta[:, 1] * theta[:, 2] + 0.2 * rng.standard_normal(256)], 1).astype(np.float32)
x, c = torch.from_numpy(xs), torch.from_numpy(theta)

for name, make in [("MAF", lambda: zuko.flows.MAF(features=2, context=3, transforms=2, hidden_features=(32, 32))),
                   ("NSF", lambda: zuko.flows.NSF(features=2, context=3, transforms=2, hidden_features=(32, 32))),
                   ("RealNVP", lambda: zuko.flows.RealNVP(features=2, context=3, transforms=2,
                                                         hidden_features=(32, 32)))]:
    torch.manual_seed(0)
    flow = make()
    opt = torch.optim.Adam(flow.parameters(), lr=1e-3)
    losses = []
    for step in range(3):
        loss = -flow(c).log_prob(x).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print(name, "params", sum(p.numel() for p in flow.parameters()), "losses", [round(v, 5) for v in losses])
    with torch.no_grad():
        dist = flow(c[:2])
        lp = dist.log_prob(x[:2])
    print(name, "log_prob", [round(v, 5) for v in lp.tolist()])
    torch.manual_seed(1)
    y = flow(c[:1]).rsample((4,))
    y.square().sum().backward()
    g = sum(p.grad.abs().sum() for p in flow.parameters() if p.grad is not None)
    print(name, "rsample", list(y.shape), round(y.sum().item(), 4), "grad", round(g.item(), 4))

# unconditional flow from transforms built by hand, and a continuous normalizing flow (log-prob via the trace)
torch.manual_seed(0)
flow = zuko.lazy.Flow(
    transform=[zuko.lazy.UnconditionalTransform(zuko.transforms.MonotonicAffineTransform, torch.tensor(0.5),
                                                torch.tensor(0.2), buffer=True),
               zuko.lazy.UnconditionalTransform(zuko.transforms.SoftclipTransform, 4.0)],
    base=zuko.lazy.UnconditionalDistribution(zuko.distributions.DiagNormal, torch.zeros(2), torch.ones(2),
                                             buffer=True))
print("handmade", [round(v, 5) for v in flow().log_prob(x[:3]).tolist()])
torch.manual_seed(0)
cnf = zuko.flows.CNF(features=2, context=3, hidden_features=(16, 16), exact=True)
with torch.no_grad():
    print("cnf log_prob", [round(v, 4) for v in cnf(c[:3]).log_prob(x[:3]).tolist()])
