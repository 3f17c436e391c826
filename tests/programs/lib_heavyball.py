"""heavyball: its chainable optimizers (AdamW, NAdam, LaProp, ADOPT, RMSprop, AdEMAMix, SGD, SignLaProp,
UnscaledAdamW, AdamC, schedule-free SFAdamW, Muon and MuonLaProp) training the same seeded MLP eagerly
(``heavyball.utils.compile_mode = None``: no torch.compile), and an optimizer state_dict round trip."""
import io

import heavyball
import heavyball.utils
import torch
import torch.nn.functional as F

heavyball.utils.compile_mode = None
heavyball.utils.compile_mode_recommended_to_none = None

torch.manual_seed(0)
X = torch.randn(48, 6)
Y = (X[:, 0] * X[:, 1] - X[:, 2]).unsqueeze(1)


def make(seed=1):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))


def train(model, opt, steps=5):
    losses = []
    for _ in range(steps):
        def closure():
            opt.zero_grad()
            loss = F.mse_loss(model(X), Y)
            loss.backward()
            return loss
        losses.append(round(opt.step(closure).item(), 4))
    return losses


CASES = [("AdamW", dict(lr=1e-2)), ("NAdam", dict(lr=1e-2)), ("LaProp", dict(lr=1e-2)), ("ADOPT", dict(lr=1e-2)),
         ("RMSprop", dict(lr=1e-2)), ("AdEMAMix", dict(lr=1e-2)), ("SGD", dict(lr=1e-2)),
         ("SignLaProp", dict(lr=1e-3)), ("UnscaledAdamW", dict(lr=1e-2)), ("AdamC", dict(lr=1e-2)),
         ("SFAdamW", dict(lr=1e-2)), ("Muon", dict(lr=1e-2)), ("MuonLaProp", dict(lr=1e-2))]
for name, kw in CASES:
    model = make()
    opt = getattr(heavyball, name)(model.parameters(), **kw)
    print(name, train(model, opt), round(sum(p.abs().sum() for p in model.parameters()).item(), 3))

model = make(2)
opt = heavyball.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
train(model, opt, steps=3)
buf = io.BytesIO()
torch.save(opt.state_dict(), buf)
buf.seek(0)
model2 = make(2)
model2.load_state_dict(model.state_dict())
opt2 = heavyball.AdamW(model2.parameters(), lr=1e-2, weight_decay=1e-2)
opt2.load_state_dict(torch.load(buf, weights_only=False))
print("resumed", train(model, opt, steps=2), train(model2, opt2, steps=2))
