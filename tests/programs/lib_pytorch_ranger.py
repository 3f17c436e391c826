"""pytorch-ranger: Ranger (RAdam + Lookahead), RangerQH (QHAdam + Lookahead) and RangerVA (with amsgrad,
softplus transformer) stepping a small model past the k lookahead sync; these optimizers use torch's deprecated
``add_(scalar, tensor)`` / ``addcmul_(scalar, t1, t2)`` / ``addcdiv_(scalar, t1, t2)`` overloads, ``p.data``
writes, ``torch.max(..., out=)`` and (RangerQH) a closure; then a state_dict round trip."""
import torch
import torch.nn as nn
from pytorch_ranger import Ranger, RangerQH, RangerVA


def make():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 12), nn.GELU(), nn.Linear(12, 2))


torch.manual_seed(1)
x, y = torch.randn(40, 6), torch.randn(40, 2)
configs = [
    ("Ranger", Ranger, dict(lr=0.05, k=3)),
    ("Ranger_wd", Ranger, dict(lr=0.05, k=4, weight_decay=0.01, N_sma_threshhold=4)),
    ("RangerQH", RangerQH, dict(lr=0.05, k=3)),
    ("RangerQH_wd", RangerQH, dict(lr=0.05, k=3, weight_decay=0.01)),
    ("RangerQH_dwd", RangerQH, dict(lr=0.05, k=3, weight_decay=0.01, decouple_weight_decay=True)),
    ("RangerVA", RangerVA, dict(lr=0.05, k=3)),
    ("RangerVA_noams", RangerVA, dict(lr=0.05, k=3, amsgrad=False, transformer="none", weight_decay=0.01)),
    ("RangerVA_abs", RangerVA, dict(lr=0.05, k=3, grad_transformer="abs")),
]
for name, cls, kw in configs:
    model = make()
    opt = cls(model.parameters(), **kw)
    losses = []
    for step in range(8):
        def closure():
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            return loss
        if cls is RangerQH:  # the only one of the three that calls the closure
            loss = opt.step(closure)
        else:
            loss = closure()
            assert opt.step() is None
        losses.append(loss.item())
    print(name, " ".join(f"{v:.5f}" for v in losses))
    print(name, "params", " ".join(f"{p.sum().item():.5f}" for p in model.parameters()))
    sd = opt.state_dict()
    keys = sorted(sd["state"][0].keys())
    print(name, "state", keys, sd["param_groups"][0].get("step_counter"))
    opt2 = cls(make().parameters(), **kw)
    opt2.load_state_dict(sd)
    st = opt2.state_dict()["state"][0]
    print(name, "reloaded", " ".join(f"{k}={st[k].sum().item():.5f}" if torch.is_tensor(st[k]) else f"{k}={st[k]}"
                                    for k in keys))
