"""Boilerplate of common training scripts: determinism/backends flags, random_split with a generator,
ReduceLROnPlateau/OneCycleLR, GradScaler(enabled=False), autocast on cpu, inference_mode,
parameters_to_vector, state_dict save/load with weights_only=True, pin_memory loader."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)
torch.cuda.manual_seed_all(0)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
torch.set_float32_matmul_precision('high')
torch.use_deterministic_algorithms(True)
device = 'cuda' if torch.cuda.is_available() else 'cpu'
device_type = 'cuda' if 'cuda' in device else 'cpu'
print(f"device {device} deterministic {torch.are_deterministic_algorithms_enabled()} "
      f"precision {torch.get_float32_matmul_precision()}")

X = torch.randn(40, 5)
y = (X.sum(1) > 0).long()
ds = TensorDataset(X, y)
train_ds, val_ds = random_split(ds, [0.75, 0.25], generator=torch.Generator().manual_seed(42))
print(f"split {len(train_ds)} {len(val_ds)} first {val_ds.indices[:3]}")
train_loader = DataLoader(train_ds, batch_size=10, shuffle=True, pin_memory=torch.cuda.is_available(),
                          generator=torch.Generator().manual_seed(1))
model = nn.Sequential(nn.Linear(5, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 2)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode='min', factor=0.5, patience=0)
scaler = torch.cuda.amp.GradScaler(enabled=False) if hasattr(torch.cuda, 'amp') else None
scaler2 = torch.amp.GradScaler(device_type, enabled=(device_type == 'cuda'))
for epoch in range(3):
    model.train()
    for xb, yb in train_loader:
        xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
        with torch.autocast(device_type=device_type, dtype=torch.bfloat16, enabled=False):
            loss = F.cross_entropy(model(xb), yb, label_smoothing=0.1)
        optimizer.zero_grad(set_to_none=True)
        scaler2.scale(loss).backward()
        scaler2.unscale_(optimizer)
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler2.step(optimizer)
        scaler2.update()
    model.eval()
    with torch.inference_mode():
        xv = torch.stack([val_ds[i][0] for i in range(len(val_ds))])
        yv = torch.stack([val_ds[i][1] for i in range(len(val_ds))])
        vloss = F.cross_entropy(model(xv), yv).item()
        acc = (model(xv).argmax(dim=1) == yv).float().mean().item()
    plateau.step(vloss)
    print(f"epoch {epoch} loss {loss.item():.5f} gn {gn.item():.5f} val {vloss:.5f} acc {acc:.4f} "
          f"lr {optimizer.param_groups[0]['lr']:.5f}")
vec = torch.nn.utils.parameters_to_vector(model.parameters())
print(f"params {vec.numel()} {vec.norm().item():.5f}")
path = os.path.join(tempfile.mkdtemp(), 'ckpt.pt')
torch.save({'epoch': 3, 'model_state_dict': model.state_dict(), 'optimizer_state_dict': optimizer.state_dict(),
            'loss': vloss}, path)
ckpt = torch.load(path, map_location=device, weights_only=True)
model2 = nn.Sequential(nn.Linear(5, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 2))
model2.load_state_dict(ckpt['model_state_dict'])
opt2 = torch.optim.AdamW(model2.parameters(), lr=1e-2, weight_decay=0.1)
opt2.load_state_dict(ckpt['optimizer_state_dict'])
print(f"reload epoch {ckpt['epoch']} same {torch.equal(model2[0].weight, model[0].weight)} "
      f"step {opt2.state_dict()['state'][0]['step'].item():.1f}")
sched_opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
onecycle = torch.optim.lr_scheduler.OneCycleLR(sched_opt, max_lr=0.1, total_steps=6)
lrs = []
for _ in range(6):
    sched_opt.step()
    onecycle.step()
    lrs.append(f"{onecycle.get_last_lr()[0]:.5f}")
print("onecycle", " ".join(lrs))
