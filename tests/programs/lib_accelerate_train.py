"""accelerate on CPU: Accelerator(cpu=True), prepare(model, optimizer, dataloader, scheduler), backward, gather,
gradient accumulation, clip_grad_norm_, save_state/load_state, unwrap_model, save_model; prints every step's
loss and the checks (run with real torch and under ``python -m torchlike run``).

usage: lib_accelerate_train.py WORKDIR
"""
import os
import sys
import warnings

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

warnings.filterwarnings("ignore")
work = sys.argv[1]
os.makedirs(work, exist_ok=True)


def build(seed):
    set_seed(seed)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(48, 6, generator=g)
    y = (x @ torch.randn(6, 3, generator=g)).argmax(-1)
    model = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 3))
    opt = torch.optim.AdamW(model.parameters(), lr=0.02)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0 / (1 + s))
    dl = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
    return model, opt, sched, dl


acc = Accelerator(cpu=True, gradient_accumulation_steps=2)
print("state", acc.device, acc.num_processes, acc.process_index, acc.is_main_process, acc.distributed_type,
      acc.mixed_precision)
model, opt, sched, dl = build(0)
model, opt, dl, sched = acc.prepare(model, opt, dl, sched)
print("prepared", type(model).__name__, type(opt).__name__, type(dl).__name__, len(dl))
step = 0
for epoch in range(2):
    model.train()
    for x, y in dl:
        with acc.accumulate(model):
            loss = nn.functional.cross_entropy(model(x), y)
            acc.backward(loss)
            if acc.sync_gradients:
                norm = acc.clip_grad_norm_(model.parameters(), 1.0)
                print(f"sync step {step} grad_norm {float(norm):.6f}")
            opt.step()
            sched.step()
            opt.zero_grad()
        print(f"epoch {epoch} step {step} loss {loss.item():.6f} lr {sched.get_last_lr()[0]:.6f}")
        step += 1

model.eval()
preds, targets = [], []
with torch.no_grad():
    for x, y in dl:
        p, t = acc.gather_for_metrics((model(x).argmax(-1), y))
        preds.append(p)
        targets.append(t)
g = acc.gather(torch.arange(4.0))
print("gather", g.tolist(), "reduce", acc.reduce(torch.tensor([2.0, 3.0]), reduction="sum").tolist())
print("accuracy", f"{(torch.cat(preds) == torch.cat(targets)).float().mean().item():.6f}", len(torch.cat(preds)))

state_dir = os.path.join(work, "state")
acc.save_state(state_dir)
print("saved", sorted(os.listdir(state_dir)))
before = {k: v.clone() for k, v in acc.unwrap_model(model).state_dict().items()}
with torch.no_grad():
    for p in model.parameters():
        p.add_(1.0)
acc.load_state(state_dir)
after = acc.unwrap_model(model).state_dict()
print("load_state restores", all(torch.equal(before[k], after[k]) for k in before))
print("opt lr after load", f"{opt.param_groups[0]['lr']:.6f}", "state steps",
      sorted({int(s["step"]) for s in opt.state_dict()["state"].values()}))

unwrapped = acc.unwrap_model(model)
print("unwrap", type(unwrapped).__name__, unwrapped is model or isinstance(unwrapped, nn.Sequential))
acc.save_model(model, os.path.join(work, "model"), safe_serialization=False)
print("save_model", sorted(os.listdir(os.path.join(work, "model"))))
sd = torch.load(os.path.join(work, "model", "pytorch_model.bin"), weights_only=True)
print("saved weights", sorted(sd), f"{float(sum(v.sum() for v in sd.values())):.6f}")
acc.wait_for_everyone()
acc.end_training()
print("done")
