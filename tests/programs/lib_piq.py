"""piq's image-quality metrics on synthetic images (no download, no pretrained network): the full-reference
metrics (PSNR, SSIM with its contrast map, MS-SSIM, IW-SSIM, GMSD, MS-GMSD, FSIM, VSI, MDSI, HaarPSI, SR-SIM,
DSS, VIF, total variation) on RGB and grayscale batches, their Loss modules used as training objectives (a few
Adam steps pulling a noisy image to its reference, gradient norms), and the feature-distribution metrics (FID,
KID, precision/recall, MSID) over features from a small conv extractor through ``compute_feats``.

piq 0.8.0 imports ``torchvision.models`` at import time for its VGG/Inception metrics (LPIPS, DISTS,
ContentLoss, the default FID extractor), none used here: where torchvision is not installed, a stand-in
module whose constructors raise is registered first."""
import importlib.util
import sys
import types

import numpy as np
import torch

if importlib.util.find_spec("torchvision") is None:
    def _unavailable(*args, **kwargs):
        raise RuntimeError("torchvision is not installed")
    class _Unavailable(torch.nn.Module):
        __init__ = _unavailable
    _tv = types.ModuleType("torchvision")
    _tv.models = types.ModuleType("torchvision.models")
    _tv.models.inception = types.ModuleType("torchvision.models.inception")
    for _name in ("vgg16", "vgg19", "inception_v3"):
        setattr(_tv.models, _name, _unavailable)
    for _name in ("InceptionA", "InceptionC", "InceptionE"):  # base classes of piq's FID network
        setattr(_tv.models.inception, _name, _Unavailable)
    sys.modules.update({"torchvision": _tv, "torchvision.models": _tv.models,
                        "torchvision.models.inception": _tv.models.inception})

import piq  # noqa: E402


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


def full_reference(ref, noisy):
    gray_ref, gray_noisy = ref.mean(1, keepdim=True), noisy.mean(1, keepdim=True)
    print("psnr", r(piq.psnr(noisy, ref)), piq.psnr(noisy, ref, reduction="none").tolist().__len__(),
          r(piq.psnr(noisy * 255, ref * 255, data_range=255.0, convert_to_greyscale=True)))
    s, cs = piq.ssim(noisy, ref, data_range=1.0, full=True)
    print("ssim", r(s), r(cs), [r(v) for v in piq.ssim(noisy, ref, reduction="none", kernel_size=7)])
    print("ms_ssim", r(piq.multi_scale_ssim(noisy, ref, kernel_size=5)),
          r(piq.information_weighted_ssim(noisy, ref, kernel_size=5, scale_weights=torch.tensor([0.5, 0.5]))))
    print("gmsd", r(piq.gmsd(noisy, ref)), r(piq.multi_scale_gmsd(noisy, ref, chromatic=True, data_range=1.0)))
    print("fsim", r(piq.fsim(noisy, ref)), r(piq.fsim(gray_noisy, gray_ref, chromatic=False)))
    print("vsi", r(piq.vsi(noisy, ref)), "mdsi", r(piq.mdsi(noisy, ref)), r(piq.mdsi(noisy, ref, combination="mult")))
    print("haarpsi", r(piq.haarpsi(noisy, ref)), r(piq.haarpsi(gray_noisy, gray_ref, alpha=3.0)))
    print("srsim", r(piq.srsim(noisy, ref)), "dss", r(piq.dss(noisy, ref)))
    print("vif", r(piq.vif_p(noisy, ref)), r(piq.vif_p(gray_noisy, gray_ref, sigma_n_sq=1.0)))
    print("tv", r(piq.total_variation(noisy)), r(piq.total_variation(noisy, norm_type="l2")),
          [r(v, 2) for v in piq.total_variation(noisy, reduction="none", norm_type="l1")])


def loss_training(ref, noisy):
    losses = [("ssim", piq.SSIMLoss(data_range=1.0)), ("ms_ssim", piq.MultiScaleSSIMLoss(kernel_size=5)),
              ("gmsd", piq.GMSDLoss()), ("haarpsi", piq.HaarPSILoss()), ("fsim", piq.FSIMLoss()),
              ("vif", piq.VIFLoss()), ("dss", piq.DSSLoss()), ("tv", piq.TVLoss())]
    for name, loss_fn in losses:
        x = noisy.clone().requires_grad_(True)
        opt = torch.optim.Adam([x], lr=0.01)
        values = []
        for _ in range(3):
            loss = loss_fn(x) if name == "tv" else loss_fn(x, ref)
            opt.zero_grad()
            loss.backward()
            values.append(r(loss.item()))
            gnorm = x.grad.norm()
            opt.step()
            with torch.no_grad():
                x.clamp_(0, 1)
        print("loss", name, values, r(gnorm, 3))


class Extractor(torch.nn.Module):
    """A small conv feature extractor returning a one-element list, as piq's compute_feats expects."""

    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, stride=2), torch.nn.ReLU(),
                                       torch.nn.Conv2d(8, 12, 3, stride=2), torch.nn.AdaptiveAvgPool2d(1))

    def forward(self, x):
        return [10 * self.net(x)]


def feature_metrics():
    torch.manual_seed(0)
    extractor = Extractor()
    real, fake = images(24, 3, 24, 5)
    real = real + 0.05 * torch.randn(real.shape)
    loader = [{"images": real[i:i + 8]} for i in range(0, 24, 8)]
    loader_fake = [{"images": fake[i:i + 8] * 0.9} for i in range(0, 24, 8)]
    fid = piq.FID()
    fx = fid.compute_feats(loader, feature_extractor=extractor, device="cpu")
    fy = fid.compute_feats(loader_fake, feature_extractor=extractor, device="cpu")
    print("feats", tuple(fx.shape), r(fx.mean()), r(fy.mean()))
    print("fid", r(fid(fx, fy)), r(fid(fx, fx)))
    kid, var = piq.KID(ret_var=True, subset_size=12, n_subsets=4)(fx, fy)
    print("kid", r(kid, 5))
    precision, recall = piq.PR(nearest_k=3)(fx, fy)
    print("pr", r(precision), r(recall))
    np.random.seed(0)  # MSID's Lanczos starting vectors come from NumPy's global generator
    print("msid", r(piq.MSID(niters=20, rademacher=True, msid_mode="max")(fx, fy), 3))


def main():
    ref, noisy = images(2, 3, 72, 0)
    full_reference(ref, noisy)
    loss_training(ref, noisy)
    feature_metrics()


if __name__ == "__main__":
    main()
