"""asteroid-filterbanks and torch-dct: learnable and fixed audio filterbanks as encoder/decoder pairs (free, STFT
with a window, analytic free, parameterized sinc, torch.stft-backed; mel-gram needs librosa) on a seeded
waveform, the complex-as-stacked-real transforms (magnitude, masks, torch complex round trips, from_magphase),
Griffin-Lim phase reconstruction, a small masking separator trained with Adam; torch-dct's DCT-I/II and their
inverses in 1, 2 and 3 dimensions (through torch.fft) and its LinearDCT layer."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_dct
from asteroid_filterbanks import Decoder, Encoder, griffin_lim, make_enc_dec
from asteroid_filterbanks import transforms as tf


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n) + 0.0
        return [round(float(v), n) + 0.0 for v in x.flatten()]
    return round(float(x), n) + 0.0


torch.manual_seed(0)
t = torch.arange(800) / 8000.0
wav = (torch.sin(2 * np.pi * 440 * t) + 0.5 * torch.sin(2 * np.pi * 1250 * t) + 0.1 * torch.randn(800))
wav = wav[None, None].repeat(2, 1, 1) * torch.tensor([1.0, 0.5])[:, None, None]

for name, kw in [("free", {}), ("stft", {"window": np.hanning(32)}), ("analytic_free", {}),
                 ("param_sinc", {"min_low_hz": 50, "min_band_hz": 50}),
                 ("torch_stft", {"center": True})]:
    torch.manual_seed(1)
    enc, dec = make_enc_dec(name, n_filters=32, kernel_size=32, stride=16, sample_rate=8000.0, **kw)
    spec = enc(wav)
    back = dec(spec)
    print(name, tuple(spec.shape), r(spec.abs().mean()), r(spec.std()), tuple(back.shape), r(back.abs().mean()))

torch.manual_seed(2)
fb_enc, fb_dec = make_enc_dec("stft", n_filters=64, kernel_size=64, stride=16)
spec = fb_enc(wav)
mag = tf.mag(spec)
print("mag", tuple(mag.shape), r(mag.mean()), tuple(tf.magreim(spec).shape))
z = tf.to_torch_complex(spec)
print("complex", z.dtype, tuple(z.shape), r((tf.from_torch_complex(z) - spec).abs().max()))
m, p = tf.magphase(spec)
print("magphase", r((tf.from_magphase(m, p) - spec).abs().max() < 1e-4), r(tf.angle(spec)[0, :3, 2]))
mask = torch.sigmoid(torch.randn_like(mag))
print("masks", r(tf.apply_mag_mask(spec, mask).abs().mean()), r(tf.apply_real_mask(spec, torch.cat([mask, mask], 1)).std()))
# a decoder that is the encoder's pseudo-inverse (torch.pinverse of full-rank random filters; the STFT's filter
# matrix above has a zero singular value, so its float32 pseudo-inverse is rounding noise in torch too)
free_enc, free_dec = make_enc_dec("free", n_filters=32, kernel_size=16, stride=8, who_is_pinv="dec")
recon = free_dec(free_enc(wav))
print("pinv recon", tuple(recon.shape), r((recon[..., 16:-16] - wav[..., 16:-16]).abs().max()), r(recon.std()))
torch.manual_seed(3)
est = griffin_lim(mag, fb_enc, n_iter=5, momentum=0.9)
print("griffin_lim", tuple(est.shape), r(est.abs().mean()), r(F.mse_loss(tf.mag(fb_enc(est)), mag)))


class Separator(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(4)
        self.enc, self.dec = make_enc_dec("free", n_filters=16, kernel_size=16, stride=8)
        self.mask = nn.Conv1d(16, 16, 3, padding=1)

    def forward(self, x):
        w = self.enc(x)
        return self.dec(w * torch.sigmoid(self.mask(w)))


target = torch.sin(2 * np.pi * 440 * t)[None, None].repeat(2, 1, 1)
sep = Separator()
opt = torch.optim.Adam(sep.parameters(), lr=3e-3)
for step in range(4):
    opt.zero_grad()
    loss = F.mse_loss(sep(wav)[..., :800], target)
    loss.backward()
    opt.step()
print("separator", r(loss), isinstance(sep.enc, Encoder), isinstance(sep.dec, Decoder))

# torch-dct
torch.manual_seed(5)
x = torch.randn(3, 8)
for norm in (None, "ortho"):
    X = torch_dct.dct(x, norm=norm)
    print("dct", norm, r(X[0, :4]), r((torch_dct.idct(X, norm=norm) - x).abs().max() < 1e-5))
print("dct1", r(torch_dct.dct1(x)[0, :4]), r((torch_dct.idct1(torch_dct.dct1(x)) - x).abs().max() < 1e-5))
img = torch.randn(2, 6, 8)
print("dct2d", r(torch_dct.dct_2d(img, norm="ortho")[0, 0, :4]),
      r((torch_dct.idct_2d(torch_dct.dct_2d(img)) - img).abs().max() < 1e-4))
vol = torch.randn(2, 4, 5, 6)
print("dct3d", r(torch_dct.dct_3d(vol, norm="ortho").abs().sum(), 3),
      r((torch_dct.idct_3d(torch_dct.dct_3d(vol)) - vol).abs().max() < 1e-4))
layer = torch_dct.LinearDCT(8, "dct", norm="ortho")
square = torch.randn(2, 8, 8)
print("LinearDCT", r((layer(x) - torch_dct.dct(x, norm="ortho")).abs().max() < 1e-5),
      r(torch_dct.apply_linear_2d(square, torch_dct.LinearDCT(8, "idct"))[0, 0, :3]))
