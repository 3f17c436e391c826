"""nnAudio: spectrogram front ends as torch layers (conv1d with Fourier/CQT/mel kernels): STFT in its three output
formats and its inverse (iSTFT), MelSpectrogram, MFCC, CQT1992v2, CQT2010v2 (with early downsampling), the
Gammatonegram, and a small classifier trained with Adam on top of a MelSpectrogram whose mel filter bank and STFT
kernels are trainable, on seeded synthetic tones. (Griffin_Lim is left out: nnAudio 0.3.4 passes a real tensor to
torch.istft, which real torch rejects.)"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from nnAudio import features


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    return round(float(x), n)


def summary(name, x, n=4):
    x = x.detach().double()
    print(name, tuple(x.shape), r(x.abs().mean(), n), r(x.abs().max(), n), r(x.flatten()[:3], n))


sr = 8000
torch.manual_seed(0)
t = torch.arange(4096) / sr
tones = torch.stack([torch.sin(2 * math.pi * 440 * t), 0.5 * torch.sin(2 * math.pi * 1000 * t + 0.3)
                     + 0.3 * torch.sin(2 * math.pi * 220 * t)])
x = tones + 0.01 * torch.randn(2, 4096)

stft = features.STFT(n_fft=256, hop_length=64, sr=sr, output_format="Complex", verbose=False)
spec = stft(x)
summary("stft complex", spec)
summary("stft magnitude", features.STFT(n_fft=256, hop_length=64, sr=sr, output_format="Magnitude", verbose=False)(x))
summary("stft phase", features.STFT(n_fft=256, hop_length=64, sr=sr, output_format="Phase", verbose=False)(x))
istft = features.STFT(n_fft=256, hop_length=64, sr=sr, iSTFT=True, verbose=False)
rec = istft.inverse(spec, onesided=True, length=4096)
print("istft", tuple(rec.shape), r((rec - x)[:, 256:-256].abs().max() < 1e-3))
summary("stft log-freq", features.STFT(n_fft=256, hop_length=64, sr=sr, freq_scale="log", fmin=100, fmax=3000,
                                       output_format="Magnitude", verbose=False)(x))

mel = features.MelSpectrogram(sr=sr, n_fft=256, n_mels=32, hop_length=64, fmax=4000, verbose=False)
m = mel(x)
summary("mel", m)
print("mel peak bins", m.mean(-1).argmax(-1).tolist())
mfcc = features.MFCC(sr=sr, n_mfcc=13, n_fft=256, n_mels=32, hop_length=64, verbose=False)
summary("mfcc", mfcc(x), 3)

cqt = features.CQT1992v2(sr=sr, hop_length=128, fmin=55, n_bins=48, bins_per_octave=12, verbose=False)
c = cqt(x)
summary("cqt1992v2", c)
print("cqt peak bins", c.mean(-1).argmax(-1).tolist())
cqt2 = features.CQT2010v2(sr=sr, hop_length=128, fmin=110, n_bins=36, bins_per_octave=12, verbose=False)
summary("cqt2010v2", cqt2(x))
gam = features.Gammatonegram(sr=sr, n_fft=256, n_bins=24, hop_length=64, verbose=False)
summary("gammatone", gam(x))


class Classifier(nn.Module):
    """Trainable MelSpectrogram, log1p compression (clamped: the trained filter bank can turn negative), a conv
    layer and a linear head."""

    def __init__(self):
        super().__init__()
        self.front = features.MelSpectrogram(sr=sr, n_fft=128, n_mels=16, hop_length=64, trainable_mel=True,
                                             trainable_STFT=True, verbose=False)
        self.conv = nn.Conv1d(16, 8, 3, padding=1)
        self.head = nn.Linear(8, 3)

    def forward(self, w):
        s = torch.log1p(self.front(w).clamp_min(0))
        return self.head(F.relu(self.conv(s)).mean(-1))


torch.manual_seed(1)
freqs = torch.tensor([300.0, 900.0, 2000.0])
labels = torch.randint(0, 3, (12,))
tt = torch.arange(1024) / sr
batch = torch.sin(2 * math.pi * freqs[labels, None] * tt + torch.rand(12, 1)) + 0.05 * torch.randn(12, 1024)
model = Classifier()
print("trainable", sum(p.numel() for p in model.parameters() if p.requires_grad), [n for n, _ in model.front.named_parameters()])
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(6):
    opt.zero_grad()
    loss = F.cross_entropy(model(batch), labels)
    loss.backward()
    opt.step()
    if step % 2 == 0:
        print("train", step, r(loss))
print("mel kernel moved", r((model.front.mel_basis.grad is not None)), r(model.front.mel_basis.abs().sum(), 3))
print("accuracy", r((model(batch).argmax(-1) == labels).float().mean()))
