"""diffusers: a tiny UNet2DModel (down/up blocks with attention) sampled with DDPMScheduler and DDIMScheduler loops
(seeded generator), then trained a few AdamW steps as a DDPM noise predictor with DDPMScheduler.add_noise,
and save_pretrained / from_pretrained of the model and the scheduler into a temporary directory.
Prints one line per measurement; run the same script with real torch and under ``python -m torchlike run`` and compare.
"""
import tempfile

import numpy as np
import torch
from diffusers import DDIMScheduler, DDPMScheduler, UNet2DModel

rng = np.random.default_rng(0)


def show(name, x):  # signed sums of these samples cancel: compare magnitudes and the first values
    print(f"{name} {tuple(x.shape)} {x.abs().sum().item():.5f} {x.pow(2).sum().item():.5f} "
          f"{[round(v, 3) for v in x.flatten()[:3].tolist()]}")


torch.manual_seed(0)
model = UNet2DModel(sample_size=8, in_channels=3, out_channels=3, layers_per_block=1,
                    block_out_channels=(16, 32), norm_num_groups=8,
                    down_block_types=("DownBlock2D", "AttnDownBlock2D"),
                    up_block_types=("AttnUpBlock2D", "UpBlock2D"))
print("parameters", sum(p.numel() for p in model.parameters()))
sched = DDPMScheduler(num_train_timesteps=50, beta_schedule="squaredcos_cap_v2")
show("alphas_cumprod", sched.alphas_cumprod)

model.eval()
with torch.no_grad():
    show("init output", model(torch.from_numpy(rng.standard_normal((2, 3, 8, 8)).astype(np.float32)), 3).sample)
sched.set_timesteps(5)
print("ddpm timesteps", sched.timesteps.tolist())
gen = torch.Generator().manual_seed(1)
x = torch.randn(2, 3, 8, 8, generator=gen)
with torch.no_grad():
    for t in sched.timesteps:
        eps = model(x, t).sample
        x = sched.step(eps, t, x, generator=gen).prev_sample
show("ddpm sample", x)

ddim = DDIMScheduler.from_config(sched.config)
ddim.set_timesteps(4)
print("ddim timesteps", ddim.timesteps.tolist())
x = torch.randn(2, 3, 8, 8, generator=torch.Generator().manual_seed(2))
with torch.no_grad():
    for t in ddim.timesteps:
        x = ddim.step(model(x, t).sample, t, x, eta=0.0).prev_sample
show("ddim sample", x)


images = torch.from_numpy(rng.standard_normal((4, 3, 8, 8)).astype(np.float32)).clamp(-1, 1)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
model.train()
for step in range(3):
    noise = torch.from_numpy(rng.standard_normal((4, 3, 8, 8)).astype(np.float32))
    t = torch.from_numpy(rng.integers(0, 50, (4,)))
    noisy = sched.add_noise(images, noise, t)
    pred = model(noisy, t).sample
    loss = torch.nn.functional.mse_loss(pred, noise)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(f"step {step} loss {loss.item():.5f}")

model.eval()
with tempfile.TemporaryDirectory() as d:
    model.save_pretrained(d)
    sched.save_pretrained(d)
    again = UNet2DModel.from_pretrained(d)
    sched2 = DDPMScheduler.from_pretrained(d)
probe = torch.from_numpy(rng.standard_normal((1, 3, 8, 8)).astype(np.float32))
with torch.no_grad():
    a, b = model(probe, 7).sample, again(probe, 7).sample
print("reload maxdiff below 1e-5", (a - b).abs().max().item() < 1e-5)
print("reloaded scheduler", type(sched2).__name__, sched2.config.num_train_timesteps, sched2.config.beta_schedule)
show("reloaded output", b)  # after AdamW steps: weights with ~0 gradients move by +-lr, so looser
