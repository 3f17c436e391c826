"""julius (differentiable DSP on torch): fractional sinc resampling (functional and module, both directions, with
output_length and full=True), FIR low-pass / high-pass / band-pass filter banks (direct and FFT paths, stride,
no padding), mel-band splitting, FFT convolution against F.conv1d and an FFTConv1d layer trained with Adam, the
core helpers (sinc, mel scale, volume, pure_tone, the as_strided unfold), TorchScript scripting of a filter, and
gradients flowing through a resampler into a learnable signal."""
import torch
import torch.nn.functional as F
import julius
from julius.core import hz_to_mel, mel_frequencies, mel_to_hz, pure_tone, sinc, unfold, volume


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
sr = 400
sig = pure_tone(13, sr=sr, dur=1.0) + 0.5 * pure_tone(97, sr=sr, dur=1.0) + 0.05 * torch.randn(sr)
sig = torch.stack([sig, sig.flip(0)]).unsqueeze(1)  # [2, 1, 400]
print("tone", tuple(sig.shape), r(volume(sig)), r(sig[0, 0, :4]))
print("sinc", r(sinc(torch.linspace(-3, 3, 7))))
print("mel", r(hz_to_mel(torch.tensor([100.0, 1000.0]))), r(mel_to_hz(torch.tensor([300.0]))),
      r(mel_frequencies(5, 20.0, 200.0)))
frames = unfold(torch.arange(10.0).view(1, 10), 4, 3)
print("unfold", tuple(frames.shape), r(frames))

for old, new in [(4, 3), (2, 5), (7, 4)]:
    y = julius.resample_frac(sig, old, new)
    print("resample", old, new, tuple(y.shape), r(y.std()), r(y[1, 0, 10:13]))
y = julius.resample_frac(sig, 5, 3, output_length=200, zeros=8, rolloff=0.9)
y_full = julius.resample_frac(sig, 3, 4, full=True)
print("resample opts", tuple(y.shape), r(y.abs().mean()), tuple(y_full.shape), r(y_full.abs().mean()))
rs = julius.ResampleFrac(4, 3, zeros=12)
print("resampler", rs, tuple(rs.kernel.shape), r(rs.kernel.sum()))

low = julius.lowpass_filters(sig, [0.02, 0.1, 0.3])
print("lowpass bank", tuple(low.shape), r(low.std(dim=-1)))
low_fft = julius.lowpass_filter(sig, 0.05, fft=True)
low_direct = julius.lowpass_filter(sig, 0.05, fft=False)
print("lowpass fft vs direct", r((low_fft - low_direct).abs().max(), 5), r(low_direct.std()))
lp = julius.LowPassFilter(0.1, stride=3, pad=False, zeros=4)
print("lowpass strided", lp, tuple(lp(sig).shape), r(lp(sig).mean()))
hp = julius.highpass_filters(sig, [0.05, 0.2])
print("highpass", tuple(hp.shape), r(hp.std(dim=-1)))
bp = julius.BandPassFilter(0.02, 0.1)
print("bandpass", tuple(bp(sig).shape), r(bp(sig).std()), r(julius.bandpass_filter(sig, 0.2, 0.3).std()))
bands = julius.split_bands(sig, sr, n_bands=4)
print("bands", tuple(bands.shape), r(bands.std(dim=-1).flatten()[:4]), r((bands.sum(0) - sig).abs().max(), 5))
sb = julius.SplitBands(sr, cutoffs=[30.0, 90.0], fft=True)
print("split", sb, tuple(sb(sig).shape))

scripted = torch.jit.script(julius.LowPassFilter(0.1))
print("scripted", r((scripted(sig) - julius.lowpass_filter(sig, 0.1)).abs().max(), 6))

torch.manual_seed(1)
x = torch.randn(2, 3, 300)
w = torch.randn(4, 3, 40)
b = torch.randn(4)
for stride, padding in [(1, 0), (3, 5)]:
    ref = F.conv1d(x, w, b, stride=stride, padding=padding)
    out = julius.fft_conv1d(x, w, b, stride=stride, padding=padding, block_ratio=3)
    print("fftconv", stride, padding, tuple(out.shape), r((out - ref).abs().max() < 1e-3), r(out.std()))
try:
    julius.fft_conv1d(x[..., :20], w)
except RuntimeError as e:
    print("short", e)

torch.manual_seed(2)
conv = julius.FFTConv1d(1, 2, 33, bias=True)
target = torch.cat([julius.lowpass_filter(sig, 0.05), julius.highpass_filter(sig, 0.2)], dim=1)[..., 16:-16]
opt = torch.optim.Adam(conv.parameters(), lr=1e-2)
for step in range(6):
    opt.zero_grad()
    loss = F.mse_loss(conv(sig), target)
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("fit", step, r(loss), r(conv.weight.grad.norm()))

# recover a signal through a resampler by gradient descent
torch.manual_seed(3)
est = torch.zeros(1, 1, 120, requires_grad=True)
goal = julius.resample_frac(sig[:1, :, :120], 4, 3).detach()
opt = torch.optim.SGD([est], lr=2.0, momentum=0.5)
for step in range(8):
    opt.zero_grad()
    loss = (julius.resample_frac(est, 4, 3) - goal).pow(2).mean()
    loss.backward()
    opt.step()
print("inverse", r(loss, 6), r(est.grad.abs().max(), 6), r(est[0, 0, 50:53]))
