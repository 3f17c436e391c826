"""ptwt (PyTorch wavelet toolbox) on seeded signals and images: 1-D/2-D/3-D fast wavelet transforms by
convolution (wavedec/waverec with several wavelets and padding modes), the separable 2-D/3-D transforms, the
sparse-matrix transforms (MatrixWavedec/MatrixWaverec with boundary wavelets, sparse matmuls), the stationary
transform (swt/iswt), wavelet packets in 1-D and 2-D, the continuous transform with a Morlet and a learnable
shannon wavelet, and gradients through a decomposition."""
import pywt
import torch

import ptwt


def r(x, n=4):
    return round(float(x), n)


def coef_summary(coeffs):
    out = []
    for c in coeffs:
        if isinstance(c, torch.Tensor):
            out.append((list(c.shape), r(c.abs().sum())))
        elif isinstance(c, dict):
            out.append(sorted((k, list(v.shape), r(v.abs().sum())) for k, v in c.items()))
        else:
            out.append([(list(v.shape), r(v.abs().sum())) for v in c])
    return out


torch.manual_seed(0)
x1 = torch.randn(2, 64, dtype=torch.float64)
for wav, mode in (("haar", "zero"), ("db2", "reflect"), ("sym3", "periodic"), ("db4", "symmetric")):
    c = ptwt.wavedec(x1, pywt.Wavelet(wav), mode=mode, level=3)
    rec = ptwt.waverec(c, pywt.Wavelet(wav))
    print("wavedec", wav, mode, coef_summary(c), r((rec[..., :64] - x1).abs().max(), 6))

x2 = torch.randn(2, 32, 32, dtype=torch.float64)
c2 = ptwt.wavedec2(x2, "db2", level=2, mode="reflect")
print("wavedec2", coef_summary(c2), r((ptwt.waverec2(c2, "db2")[..., :32, :32] - x2).abs().max(), 6))
c2s = ptwt.fswavedec2(x2, "haar", level=2)
print("fswavedec2", coef_summary(c2s), r((ptwt.fswaverec2(c2s, "haar") - x2).abs().max(), 6))
x3 = torch.randn(1, 8, 8, 8, dtype=torch.float64)
c3 = ptwt.wavedec3(x3, "haar", level=1)
print("wavedec3", coef_summary(c3), r((ptwt.waverec3(c3, "haar") - x3).abs().max(), 6))

# sparse-matrix transforms with boundary wavelets
mw = ptwt.MatrixWavedec("db2", level=2, orthogonalization="qr")
cm = mw(x1[:, :32])
print("matrix wavedec", coef_summary(cm),
      r((ptwt.MatrixWaverec("db2", orthogonalization="qr")(cm) - x1[:, :32]).abs().max(), 6))
mw2 = ptwt.MatrixWavedec2("haar", level=2)
cm2 = mw2(x2)
print("matrix wavedec2", coef_summary(cm2), r((ptwt.MatrixWaverec2("haar")(cm2) - x2).abs().max(), 6))

# stationary wavelet transform
cs = ptwt.swt(x1, "db1", level=2)
print("swt", coef_summary(cs), r((ptwt.iswt(cs, "db1") - x1).abs().max(), 6))

# wavelet packets
wp = ptwt.WaveletPacket(x1, "db1", mode="reflect", maxlevel=3)
print("packet", [(k, list(wp[k].shape), r(wp[k].abs().sum())) for k in ("a", "ad", "dda", "ddd")])
wp2 = ptwt.WaveletPacket2D(x2, "haar", mode="reflect", maxlevel=2)
print("packet2d", [(k, list(wp2[k].shape), r(wp2[k].abs().sum())) for k in ("a", "h", "ad", "vv")])

# continuous wavelet transform
t = torch.linspace(-2, 2, 64, dtype=torch.float64)
sig = torch.sin(8 * torch.pi * t) * (t > 0) + torch.sin(2 * torch.pi * t) * (t <= 0)
scales = torch.arange(1, 8, dtype=torch.float64)
cw, freqs = ptwt.cwt(sig, scales, "morl", sampling_period=4 / 64)
print("cwt", list(cw.shape), r(cw.abs().sum()), [r(f) for f in freqs[:3]])
cwc, _ = ptwt.cwt(sig.float(), scales.float(), pywt.ContinuousWavelet("cmor1.0-1.0"))
print("cwt complex", cwc.dtype, list(cwc.shape), r(cwc.abs().sum(), 2))

# gradients through the decomposition
xg = torch.randn(1, 32, requires_grad=True)
sum(c.pow(2).sum() for c in ptwt.wavedec(xg, "db3", level=2, mode="zero")[1:]).backward()
print("grad", r(xg.grad.abs().sum()), [r(v) for v in xg.grad[0, :4].tolist()])
