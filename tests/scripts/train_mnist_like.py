"""An ordinary PyTorch training script (no torchlike mentioned): run it through the drop-in runner."""
import argparse
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.bn = nn.BatchNorm2d(4)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(4 * 6 * 6, 16)
        self.fc2 = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.bn(self.conv1(x)))
        x = F.max_pool2d(x, 2)
        x = self.dropout(torch.flatten(x, 1))
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), dim=1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--compile", action="store_true")
    args = p.parse_args()
    torch.manual_seed(1)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x = torch.randn(256, 1, 14, 14)
    y = (x.mean(dim=(1, 2, 3)) > 0).long() + 2 * (x[:, 0, 0, 0] > 0).long()
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    model = Net().to(device)
    if args.compile:
        model = torch.compile(model)
    opt = torch.optim.Adadelta(model.parameters(), lr=1.0)
    sched = StepLR(opt, step_size=1, gamma=0.7)
    scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())
    for epoch in range(1, args.epochs + 1):
        model.train()
        total = 0.0
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            opt.zero_grad()
            loss = F.nll_loss(model(data), target)
            scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            scaler.step(opt)
            scaler.update()
            total += loss.item() * data.size(0)
        sched.step()
        model.eval()
        with torch.no_grad():
            pred = model(x.to(device)).argmax(dim=1, keepdim=True)
            acc = pred.eq(y.view_as(pred)).sum().item() / len(x)
        print(f"epoch {epoch} loss {total / len(x):.4f} acc {acc:.3f} lr {sched.get_last_lr()[0]:.3f}")
    path = os.path.join(tempfile.mkdtemp(), "ckpt.pt")
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": args.epochs}, path)
    ck = torch.load(path)
    fresh = Net()
    fresh.load_state_dict({k.replace("_orig_mod.", ""): v for k, v in ck["model"].items()})
    print("reloaded", ck["epoch"], sorted(ck["model"])[:2], isinstance(fresh.fc1.weight, nn.Parameter))
    print("CKPT", path)


if __name__ == "__main__":
    main()
