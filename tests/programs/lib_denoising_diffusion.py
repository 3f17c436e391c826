"""denoising-diffusion-pytorch: a tiny Unet trained two Adam steps as a GaussianDiffusion (pred_v objective) and
sampled with DDIM, and its noise-schedule buffers;
a Unet1D GaussianDiffusion1D (pred_noise) loss and its gradient.

The package imports torchvision (transforms and utils, for its image Trainer only); torchvision is not installed
beside this torch, so empty stand-ins are put in its place (no Trainer is built here)."""
import sys
import types

tv = types.ModuleType("torchvision")
tv.transforms = types.ModuleType("torchvision.transforms")
tv.utils = types.ModuleType("torchvision.utils")
sys.modules.update({"torchvision": tv, "torchvision.transforms": tv.transforms, "torchvision.utils": tv.utils})

import torch  # noqa: E402
from denoising_diffusion_pytorch import GaussianDiffusion, GaussianDiffusion1D, Unet, Unet1D  # noqa: E402


def r(x, n=4):
    return round(float(x), n)


torch.manual_seed(0)
model = Unet(dim=8, dim_mults=(1, 2), flash_attn=False)
diffusion = GaussianDiffusion(model, image_size=8, timesteps=10, sampling_timesteps=3)
print("params", sum(p.numel() for p in diffusion.parameters()), diffusion.objective, diffusion.is_ddim_sampling)
opt = torch.optim.Adam(diffusion.parameters(), lr=1e-3)
imgs = torch.rand(2, 3, 8, 8)
for i in range(2):
    loss = diffusion(imgs)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("loss", r(loss))
with torch.no_grad():
    s = diffusion.sample(batch_size=2)
print("sample", tuple(s.shape), r(s.mean()), r(s.std()), r(s.min()), r(s.max()))
print("buffers", [r(diffusion.alphas_cumprod[i], 6) for i in (0, 4, 9)], r(diffusion.loss_weight.sum()))

torch.manual_seed(1)
model1d = Unet1D(dim=8, dim_mults=(1, 2), channels=2)
diffusion1d = GaussianDiffusion1D(model1d, seq_length=16, timesteps=10, objective="pred_noise")
loss = diffusion1d(torch.rand(2, 2, 16))
loss.backward()
print("1d loss", r(loss), r(sum(p.grad.abs().sum() for p in model1d.parameters() if p.grad is not None), 3))
