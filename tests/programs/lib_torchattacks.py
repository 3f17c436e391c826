"""torchattacks: adversarial attacks on a small seeded CNN classifier trained for a few steps: FGSM, PGD (Linf,
L2, random start), MI-FGSM, DI-FGSM (random resize and pad), TI-FGSM (scipy Gaussian kernel through a
depthwise conv), EOT-PGD, TPGD (KL divergence), CW (tanh space, Adam), DeepFool (per-class jacobians), APGD,
targeted modes (least likely, by function), input normalization, and Attack.save / load through a DataLoader."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchattacks


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(2)
        self.fc = nn.Linear(8 * 2 * 2, 4)

    def forward(self, x):
        x = F.relu(self.bn(self.conv1(x)))
        x = F.relu(self.conv2(x))
        return self.fc(self.pool(x).flatten(1))


torch.manual_seed(0)
N = 16
labels = torch.arange(N) % 4
base = torch.rand(4, 3, 8, 8)
images = (0.25 * base[labels] + 0.75 * torch.rand(N, 3, 8, 8)).clamp(0, 1)

model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(15):
    opt.zero_grad()
    loss = F.cross_entropy(model(images), labels)
    loss.backward()
    opt.step()
model.eval()
print("train", r(loss), (model(images).argmax(1) == labels).float().mean().item())


def report(name, atk, imgs=images, lbls=labels):
    torch.manual_seed(123)
    adv = atk(imgs, lbls)
    delta = adv - imgs
    with torch.no_grad():
        acc = (model(adv).argmax(1) == lbls).float().mean().item()
    print(name, tuple(adv.shape), r(delta.abs().max()), r(delta.abs().mean(), 5), r(delta.flatten(1).norm(dim=1).mean()),
          acc)
    return adv


report("fgsm", torchattacks.FGSM(model, eps=4 / 255))
report("pgd", torchattacks.PGD(model, eps=4 / 255, alpha=1 / 255, steps=5, random_start=True))
report("pgd_l2", torchattacks.PGDL2(model, eps=0.3, alpha=0.1, steps=5, random_start=True))
report("mifgsm", torchattacks.MIFGSM(model, eps=4 / 255, alpha=1 / 255, steps=5, decay=1.0))
report("difgsm", torchattacks.DIFGSM(model, eps=4 / 255, alpha=1 / 255, steps=4, resize_rate=1.25,
                                     diversity_prob=1.0))
report("tifgsm", torchattacks.TIFGSM(model, eps=4 / 255, alpha=1 / 255, steps=4, kernel_name="gaussian", len_kernel=5,
                                     nsig=3, diversity_prob=0.0))
report("eotpgd", torchattacks.EOTPGD(model, eps=4 / 255, alpha=1 / 255, steps=3, eot_iter=2))
report("tpgd", torchattacks.TPGD(model, eps=4 / 255, alpha=1 / 255, steps=4))
report("cw", torchattacks.CW(model, c=1.0, kappa=0, steps=10, lr=0.05))
report("deepfool", torchattacks.DeepFool(model, steps=10, overshoot=0.02), images[:4], labels[:4])
report("apgd", torchattacks.APGD(model, norm="Linf", eps=24 / 255, steps=5, n_restarts=1, seed=0, loss="ce"))

atk = torchattacks.PGD(model, eps=4 / 255, alpha=1 / 255, steps=4, random_start=False)
atk.set_mode_targeted_least_likely()
print("mode", atk.get_mode())
report("pgd_ll", atk)
atk.set_mode_targeted_by_function(target_map_function=lambda x, y: (y + 1) % 4)
adv = report("pgd_fn", atk)
with torch.no_grad():
    print("hit_target", (model(adv).argmax(1) == (labels + 1) % 4).float().mean().item())
atk.set_mode_default()

# a model that normalizes inside: the attack normalizes before calling it
mean, std = [0.5, 0.4, 0.3], [0.2, 0.25, 0.3]
atk = torchattacks.FGSM(model, eps=2 / 255)
atk.set_normalization_used(mean=mean, std=std)
report("fgsm_norm", atk)
print(repr(torchattacks.FGSM(model, eps=0.1)).split("(")[0])

# save adversarial examples from a DataLoader and load them back
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels), batch_size=8)
atk = torchattacks.FGSM(model, eps=8 / 255)
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "adv.pt")
    atk.save(loader, save_path=path, verbose=False, save_type="float")
    adv_loader = atk.load(path, batch_size=8, load_predictions=False)
    xs, ys = next(iter(adv_loader))
    print("loaded", tuple(xs.shape), ys.tolist(), r((xs - images[:8]).abs().max()))
