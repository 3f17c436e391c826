"""The CIFAR-10 tutorial's structure (own code, synthetic 3x16x16 images, no torchvision): a Dataset with
torchvision-free transforms (pad + random crop, random horizontal flip, normalize) drawing from torch's RNG,
``random_split`` with a seeded generator, a ``SubsetRandomSampler`` over the training part and a
``WeightedRandomSampler`` pass, DataLoader with ``drop_last``/``collate_fn``; a BatchNorm/Dropout CNN trained
with SGD (momentum, nesterov, weight decay), label-smoothed cross entropy, OneCycleLR; then eval accuracy,
per-class accuracy, a checkpoint round trip through ``state_dict``/``torch.save``/``torch.load`` and
``torch.topk``."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import (DataLoader, Dataset, SubsetRandomSampler, WeightedRandomSampler, default_collate,
                              random_split)

torch.manual_seed(0)
N, C, H, NUM_CLASSES = 96, 3, 16, 4
images = torch.rand(N, C, H, H)
labels = torch.randint(0, NUM_CLASSES, (N,))
images += labels.view(-1, 1, 1, 1).float() * 0.15  # make the classes learnable


class RandomCrop:
    def __init__(self, size, padding):
        self.size, self.padding = size, padding

    def __call__(self, img):
        img = F.pad(img, [self.padding] * 4, mode="reflect")
        i = torch.randint(0, img.shape[1] - self.size + 1, (1,)).item()
        j = torch.randint(0, img.shape[2] - self.size + 1, (1,)).item()
        return img[:, i:i + self.size, j:j + self.size]


class RandomHorizontalFlip:
    def __call__(self, img):
        return img.flip(-1) if torch.rand(1) < 0.5 else img


class Normalize:
    def __init__(self, mean, std):
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def __call__(self, img):
        return (img - self.mean) / self.std


class Compose:
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class ImageDataset(Dataset):
    def __init__(self, x, y, transform=None):
        self.x, self.y, self.transform = x, y, transform

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        img = self.x[i]
        if self.transform is not None:
            img = self.transform(img)
        return img, int(self.y[i])


train_tf = Compose([RandomCrop(H, 2), RandomHorizontalFlip(), Normalize([0.5] * 3, [0.25] * 3)])
full = ImageDataset(images, labels, train_tf)
train_part, val_part = random_split(full, [0.75, 0.25], generator=torch.Generator().manual_seed(42))
print("split", len(train_part), len(val_part), sorted(val_part.indices)[:6])
sampler = SubsetRandomSampler(list(range(len(train_part))), generator=torch.Generator().manual_seed(1))


def collate(batch):
    x, y = default_collate(batch)
    return x, y


train_loader = DataLoader(train_part, batch_size=16, sampler=sampler, drop_last=True, collate_fn=collate)
val_loader = DataLoader(val_part, batch_size=32)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.25), nn.Linear(16 * 4 * 4, 32), nn.ReLU(),
                                        nn.Linear(32, NUM_CLASSES))

    def forward(self, x):
        return self.classifier(self.features(x))


net = Net()
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
EPOCHS = 3
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=EPOCHS,
                                                steps_per_epoch=len(train_loader))
for epoch in range(EPOCHS):
    net.train()
    running = 0.0
    for i, (x, y) in enumerate(train_loader):
        optimizer.zero_grad()
        loss = criterion(net(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        running += loss.item()
    print(f"epoch {epoch} loss {running / len(train_loader):.5f} lr {scheduler.get_last_lr()[0]:.6f}")

net.eval()
correct = total = 0
class_correct = [0] * NUM_CLASSES
class_total = [0] * NUM_CLASSES
with torch.no_grad():
    for x, y in val_loader:
        out = net(x)
        _, predicted = torch.max(out, 1)
        total += y.size(0)
        correct += (predicted == y).sum().item()
        for label, pred in zip(y, predicted):
            class_total[label] += 1
            class_correct[label] += int(label == pred)
        top2 = torch.topk(F.softmax(out, dim=1), 2, dim=1)
print(f"val accuracy {100 * correct / total:.3f} of {total}")
print("per class", [f"{c}/{t}" for c, t in zip(class_correct, class_total)])
print(f"top2 probs {top2.values[0].tolist()[0]:.5f} {top2.values[0].tolist()[1]:.5f}")

# a weighted pass (class-balanced sampling, as in imbalanced-data tutorials)
counts = torch.bincount(labels, minlength=NUM_CLASSES).float()
weights = (1.0 / counts)[labels]
wsampler = WeightedRandomSampler(weights, num_samples=32, replacement=True,
                                 generator=torch.Generator().manual_seed(3))
drawn = list(wsampler)
print("weighted draw", drawn[:8], torch.bincount(labels[drawn], minlength=NUM_CLASSES).tolist())

buf = io.BytesIO()
torch.save({"model": net.state_dict(), "optimizer": optimizer.state_dict(), "epoch": EPOCHS}, buf)
buf.seek(0)
ckpt = torch.load(buf)
net2 = Net()
net2.load_state_dict(ckpt["model"])
net2.eval()
x, _ = next(iter(val_loader))
with torch.no_grad():
    print(f"reloaded max diff {(net2(x) - net(x)).abs().max().item():.6f} epoch {ckpt['epoch']}")
print("bn running mean", [f"{v:.5f}" for v in net.features[1].running_mean[:3].tolist()],
      "batches", net.features[1].num_batches_tracked.item())
