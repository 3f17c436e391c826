"""lion-pytorch (Lion, with weight decay) and schedulefree (AdamWScheduleFree and SGDScheduleFree with warmup,
train/eval switching of the averaged weights) optimizing the same small regression model.  Prints one line per
measurement; run the same script with real torch and under ``python -m torchlike run`` and compare.
"""
import numpy as np
import torch
from lion_pytorch import Lion
from schedulefree import AdamWScheduleFree, SGDScheduleFree

rng = np.random.default_rng(0)
x = torch.from_numpy(rng.standard_normal((64, 8)).astype(np.float32))
y = torch.from_numpy((rng.standard_normal((64, 1)) + x.numpy()[:, :1] * 2).astype(np.float32))


def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 1))


for name, make in [("lion", lambda p: Lion(p, lr=1e-3, weight_decay=1e-2)),
                   ("adamw_schedulefree", lambda p: AdamWScheduleFree(p, lr=1e-2, warmup_steps=3)),
                   ("sgd_schedulefree", lambda p: SGDScheduleFree(p, lr=1e-2, momentum=0.9, warmup_steps=2))]:
    net = model()
    opt = make(net.parameters())
    if hasattr(opt, "train"):
        opt.train()
    losses = []
    for step in range(8):
        loss = torch.nn.functional.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 6))
    print(name, "losses", losses)
    if hasattr(opt, "eval"):
        opt.eval()  # switch the parameters to the averaged point
    with torch.no_grad():
        print(f"{name} eval loss {torch.nn.functional.mse_loss(net(x), y).item():.6f} "
              f"weight sum {net[0].weight.sum().item():.6f}")
    sd = opt.state_dict()
    print(name, "state keys", sorted(sd["state"][0].keys()), "param groups", len(sd["param_groups"]))
