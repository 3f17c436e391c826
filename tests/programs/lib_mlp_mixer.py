"""mlp-mixer-pytorch (lucidrains): MLP-Mixer (token mixing through kernel-size-1 Conv1d over patches, channel
mixing through Linear, einops Rearrange/Reduce layers) classifying seeded images with Adam and dropout, the 3-D
(video) mixer, ViP's Permutator, gradients with respect to the input image, and a state_dict round trip."""
import io

import torch
import torch.nn.functional as F
from mlp_mixer_pytorch import MLPMixer, MLPMixer3D, Permutator


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


torch.manual_seed(0)
imgs = torch.randn(6, 3, 16, 16)
labels = torch.tensor([0, 1, 2, 3, 0, 1])

torch.manual_seed(1)
mixer = MLPMixer(image_size=16, channels=3, patch_size=4, dim=24, depth=2, num_classes=4, dropout=0.1)
print("params", sum(p.numel() for p in mixer.parameters()), len(mixer), type(mixer[0]).__name__)
opt = torch.optim.Adam(mixer.parameters(), lr=2e-3)
for step in range(6):
    mixer.train()
    opt.zero_grad()
    loss = F.cross_entropy(mixer(imgs), labels)
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("train", step, r(loss))
mixer.eval()
with torch.no_grad():
    logits = mixer(imgs)
print("eval", tuple(logits.shape), r(logits[0]), r((logits.argmax(-1) == labels).float().mean()))

# non-square images and the input gradient (saliency)
torch.manual_seed(2)
rect = MLPMixer(image_size=(8, 12), channels=1, patch_size=4, dim=16, depth=1, num_classes=2,
                expansion_factor=2, expansion_factor_token=1.0)
xi = torch.randn(2, 1, 8, 12, requires_grad=True)
out = rect(xi)
out[:, 1].sum().backward()
print("rect", r(out), r(xi.grad.abs().sum()), r(xi.grad[0, 0, 0, :4]))

torch.manual_seed(3)
video = MLPMixer3D(image_size=8, time_size=4, channels=3, patch_size=4, time_patch_size=2, dim=16, depth=1,
                   num_classes=3)
v = torch.randn(2, 3, 4, 8, 8)
vo = video(v)
print("3d", tuple(vo.shape), r(vo))

torch.manual_seed(4)
perm = Permutator(image_size=16, patch_size=4, dim=24, depth=1, num_classes=4, segments=4)
opt = torch.optim.SGD(perm.parameters(), lr=0.05, momentum=0.9)
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(perm(imgs), labels)
    loss.backward()
    opt.step()
print("permutator", sum(p.numel() for p in perm.parameters()), r(loss))
print("permutator grad", r(perm[2][0].fn[0].fns[0][1].weight.grad.norm()), r(perm[1].bias.grad.norm()))

buf = io.BytesIO()
torch.save(mixer.state_dict(), buf)
buf.seek(0)
torch.manual_seed(9)
clone = MLPMixer(image_size=16, channels=3, patch_size=4, dim=24, depth=2, num_classes=4, dropout=0.1)
clone.load_state_dict(torch.load(buf))
clone.eval()
with torch.no_grad():
    print("reloaded", torch.equal(clone(imgs), logits), sorted(clone.state_dict())[:3])
