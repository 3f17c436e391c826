"""auraloss: audio losses in the time domain (ESR, DC, log-cosh, SNR, SI-SDR, SD-SDR), STFT losses (single and
multi-resolution, with a linear magnitude term, scale invariance, 'full' output, 'none' reduction), the stereo
sum-and-difference STFT loss, FIR pre-emphasis filters (high-pass, folded differentiator, and the A-weighting
filter fitted with scipy), and a small 1-D conv denoiser trained a few Adam steps on a seeded signal with a
multi-resolution STFT + SI-SDR objective."""
import torch
from auraloss.freq import MultiResolutionSTFTLoss, STFTLoss, SumAndDifferenceSTFTLoss
from auraloss.perceptual import FIRFilter, SumAndDifference
from auraloss.time import DCLoss, ESRLoss, LogCoshLoss, SDSDRLoss, SISDRLoss, SNRLoss


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
T = 2048
t = torch.arange(T) / 8000.0
clean = (0.5 * torch.sin(2 * torch.pi * 440 * t) + 0.25 * torch.sin(2 * torch.pi * 1250 * t)).view(1, 1, T)
# a noise floor under the tones: an exact sum of sinusoids leaves STFT bins at rounding level, where the log
# magnitude differs with the FFT's rounding in any two implementations
clean = clean.repeat(2, 1, 1) * torch.tensor([1.0, 0.7]).view(2, 1, 1) + 0.02 * torch.randn(2, 1, T)
noisy = clean + 0.1 * torch.randn(2, 1, T)

for loss_fn in [ESRLoss(), DCLoss(), LogCoshLoss(a=2.0), SNRLoss(), SISDRLoss(), SDSDRLoss(),
                ESRLoss(reduction="none"), SISDRLoss(reduction="sum", zero_mean=False)]:
    print(type(loss_fn).__name__, r(loss_fn(noisy, clean)))

# (no phase term: with center=True and reflect padding the first and last frames are nearly even-symmetric, so
# their spectra are nearly real and torch.angle flips between +pi and -pi on rounding-level differences)
stft = STFTLoss(fft_size=256, hop_size=64, win_length=256, w_lin_mag=0.5, output="full")
print("stft full", r(stft(noisy, clean)))
stft_none = STFTLoss(fft_size=128, hop_size=32, win_length=128, window="hamming_window", reduction="none")
out = stft_none(noisy, clean)
print("stft none", tuple(out.shape), r(out.mean()))
mr = MultiResolutionSTFTLoss(fft_sizes=[64, 128, 256], hop_sizes=[16, 32, 64], win_lengths=[64, 128, 256])
print("mrstft", r(mr(noisy, clean)))
stft_si = STFTLoss(fft_size=128, hop_size=32, win_length=128, scale_invariance=True, mag_distance="L2")
print("stft scale-invariant", r(stft_si(noisy[:1] * 1.7, clean[:1])))  # auraloss broadcasts alpha for batch 1 only

stereo_clean = torch.cat([clean[:1], clean[1:]], dim=1)
stereo_noisy = torch.cat([noisy[:1], noisy[1:] * 0.9], dim=1)
s, d = SumAndDifference()(stereo_noisy)
print("sum diff", tuple(s.shape), r(s.abs().mean()), r(d.abs().mean()))
sd = SumAndDifferenceSTFTLoss(fft_sizes=[64, 128], hop_sizes=[16, 32], win_lengths=[64, 128])
print("sum-and-difference stft", r(sd(stereo_noisy, stereo_clean)))
try:
    SumAndDifference()(noisy)
except ValueError as e:
    print("mono rejected", e)

for kind in ["hp", "fd", "aw"]:
    fir = FIRFilter(filter_type=kind, fs=8000, ntaps=31)
    a, b = fir(noisy, clean)
    print("fir", kind, tuple(a.shape), r(a.abs().mean()), r(b[0, 0, 100:104]))

# a small denoiser trained with auraloss objectives
torch.manual_seed(1)
net = torch.nn.Sequential(torch.nn.Conv1d(1, 8, 9, padding=4), torch.nn.Tanh(), torch.nn.Conv1d(8, 1, 9, padding=4))
opt = torch.optim.Adam(net.parameters(), lr=3e-3)
# eps floors |X|^2 for the log magnitude: at the default 1e-8 a bin of |X|^2 ~ 1e-7 gives a log-magnitude
# gradient ~ 1/|X|^2 that amplifies the FFT's rounding (torch's and ours are equally accurate against float64)
# into 1e-4 relative gradient differences within a few Adam steps
mr_fit = MultiResolutionSTFTLoss(fft_sizes=[64, 128], hop_sizes=[16, 32], win_lengths=[64, 128], eps=1e-4)
sisdr = SISDRLoss()
for step in range(6):
    opt.zero_grad()
    est = noisy + net(noisy)
    loss = mr_fit(est, clean) + 0.05 * sisdr(est, clean)
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("train", step, r(loss), r(net[0].weight.grad.norm()))
with torch.no_grad():
    print("after", r(ESRLoss()(noisy + net(noisy), clean)))
