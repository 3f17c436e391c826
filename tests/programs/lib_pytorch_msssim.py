"""pytorch-msssim on synthetic images: the ssim/ms_ssim functions (data range, per-image values, custom window and
constants, non-negative SSIM, custom scale weights, 3-D volumes) and the SSIM/MS_SSIM modules as the loss of a
tiny residual denoiser trained a few Adam steps."""
import pytorch_msssim
import torch


def r(x, n=4):
    return round(float(x), n)


def images(n, c, size, seed):
    g = torch.Generator().manual_seed(seed)
    yy, xx = torch.meshgrid(torch.linspace(0, 1, size), torch.linspace(0, 1, size), indexing="ij")
    base = torch.stack([torch.sin(6 * xx + 3 * k) * torch.cos(5 * yy - k) for k in range(c)])
    base = 0.5 + 0.35 * base + 0.1 * (torch.rand(c, size, size, generator=g) - 0.5)
    ref = base.expand(n, c, size, size).clone()
    for i in range(n):
        ref[i] = torch.roll(ref[i], shifts=3 * i, dims=-1)
    noisy = (ref + 0.08 * torch.randn(ref.shape, generator=g)).clamp(0, 1)
    return ref, noisy


def msssim_lib(ref, noisy):
    print("pm ssim", r(pytorch_msssim.ssim(noisy, ref, data_range=1.0)),
          [r(v) for v in pytorch_msssim.ssim(noisy, ref, data_range=1.0, size_average=False)],
          r(pytorch_msssim.ssim(noisy * 255, ref * 255, win_size=7, K=(0.02, 0.04), nonnegative_ssim=True)))
    weights = [0.2, 0.3, 0.5]
    print("pm ms_ssim", r(pytorch_msssim.ms_ssim(noisy, ref, data_range=1.0, win_size=5, weights=weights)),
          [r(v) for v in pytorch_msssim.ms_ssim(noisy, ref, data_range=1.0, win_size=5, weights=weights,
                                                size_average=False)])
    vol_ref = ref[:, :1].unsqueeze(2).repeat(1, 1, 8, 1, 1)
    vol_noisy = noisy[:, :1].unsqueeze(2).repeat(1, 1, 8, 1, 1)
    print("pm ssim3d", r(pytorch_msssim.ssim(vol_noisy, vol_ref, data_range=1.0, win_size=5)))
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.Conv2d(8, 3, 3, padding=1))
    ssim_mod = pytorch_msssim.SSIM(data_range=1.0, size_average=True, channel=3)
    ms_mod = pytorch_msssim.MS_SSIM(data_range=1.0, win_size=5, channel=3, weights=weights)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    values = []
    for _ in range(4):
        out = (noisy + model(noisy)).clamp(0, 1)
        loss = 1 - 0.5 * ssim_mod(out, ref) - 0.5 * ms_mod(out, ref)
        opt.zero_grad()
        loss.backward()
        opt.step()
        values.append(r(loss.item()))
    print("pm train", values, r(sum(p.grad.abs().sum() for p in model.parameters()), 3))


def main():
    ref, noisy = images(2, 3, 72, 0)
    msssim_lib(ref, noisy)


if __name__ == "__main__":
    main()
