"""neuraloperator (``neuralop``) on a small synthetic Darcy-like problem (no dataset download): the permeability
is a thresholded smooth random field and the solution its inverse-Helmholtz smoothing, computed with
``torch.fft``. An FNO, a Tucker-factorized TFNO, a CP TFNO in reconstructed mode and a UNO are trained a few
Adam steps with LpLoss / H1Loss; the FNO is evaluated at a finer resolution (discretization invariance); the
library's Trainer runs two epochs over a DataLoader of dict batches with a DefaultDataProcessor and
UnitGaussianNormalizers; the spectral convolution's complex weights are inspected and a checkpoint is saved
and restored with ``save_checkpoint`` / ``from_checkpoint``."""
import io
import tempfile
import warnings

import torch
from neuralop import H1Loss, LpLoss, Trainer
from neuralop.data.datasets.tensor_dataset import TensorDataset
from neuralop.data.transforms.data_processors import DefaultDataProcessor
from neuralop.data.transforms.normalizers import UnitGaussianNormalizer
from neuralop.layers.spectral_convolution import SpectralConv
from neuralop.models import FNO, TFNO, UNO

warnings.filterwarnings("ignore")


def r(x, n=4):
    return round(float(x), n)


def darcy(n, res, seed):
    """(a, u) pairs of shape (n, 1, res, res): a in {3, 12}, u = (1 - laplacian)^-1 (1 / a) on the torus."""
    g = torch.Generator().manual_seed(seed)
    noise = torch.randn(n, res, res, generator=g)
    k = torch.fft.fftfreq(res) * res
    k2 = k[:, None] ** 2 + k[None, :] ** 2
    field = torch.fft.ifft2(torch.fft.fft2(noise) * torch.exp(-k2 / 8)).real
    a = torch.where(field > 0, 12.0, 3.0)
    u = torch.fft.irfft2(torch.fft.rfft2(1.0 / a) / (1 + 0.05 * k2[:, : res // 2 + 1]), s=(res, res))
    return a[:, None], u[:, None] * 10


def fit(name, model, x, y, loss_fn, steps=4, lr=3e-3):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(r(loss.item()))
    n = sum(p.numel() for p in model.parameters())
    print(name, "params", n, "losses", losses)
    return model


def spectral_conv():
    torch.manual_seed(2)
    conv = SpectralConv(3, 4, n_modes=(4, 4))
    w = conv.weight
    dense = w.to_tensor()
    print("spectral weight", type(w).__name__, tuple(w.shape), dense.dtype, r(dense.abs().sum(), 3))
    x = torch.randn(2, 3, 12, 12)
    y = conv(x)
    print("spectral out", tuple(y.shape), y.dtype, r(y.sum()), r(y.pow(2).mean()))
    up = conv(x, output_shape=(24, 24))
    print("spectral upsample", tuple(up.shape), r(up.pow(2).mean()))
    y.square().sum().backward()
    grads = [p.grad for p in conv.parameters() if p.grad is not None]
    print("spectral grads", len(grads), [g.dtype for g in grads][:2], r(sum(g.abs().sum() for g in grads), 3))
    x3 = torch.randn(1, 2, 6, 6, 6)
    conv3 = SpectralConv(2, 2, n_modes=(3, 3, 3))
    print("spectral 3d", tuple(conv3(x3).shape), r(conv3(x3).abs().sum(), 3))


def losses(x, y):
    l2 = LpLoss(d=2, p=2)
    l2_mean = LpLoss(d=2, p=2, reduction="mean")
    l1 = LpLoss(d=2, p=1)
    h1 = H1Loss(d=2)
    pred = y + 0.1 * torch.sin(x)
    print("lp", r(l2(pred, y)), r(l2_mean(pred, y)), r(l1(pred, y)), r(l2.abs(pred, y)))
    print("h1", r(h1(pred, y)), r(h1.abs(pred, y)))


def trainer(x, y, xt, yt, xf, yf):
    torch.manual_seed(4)
    in_norm = UnitGaussianNormalizer(dim=[0, 2, 3])
    out_norm = UnitGaussianNormalizer(dim=[0, 2, 3])
    in_norm.fit(x)
    out_norm.fit(y)
    print("normalizer", r(in_norm.mean.sum()), r(in_norm.std.sum()), r(out_norm.mean.sum()), r(out_norm.std.sum()))
    processor = DefaultDataProcessor(in_norm, out_norm)
    model = FNO(n_modes=(6, 6), in_channels=1, out_channels=1, hidden_channels=12, n_layers=2)
    loader = torch.utils.data.DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True,
                                         generator=torch.Generator().manual_seed(5))
    tests = {16: torch.utils.data.DataLoader(TensorDataset(xt, yt), batch_size=4),
             32: torch.utils.data.DataLoader(TensorDataset(xf, yf), batch_size=4)}
    opt = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3)
    t = Trainer(model=model, n_epochs=3, data_processor=processor, device="cpu", verbose=False)
    l2, h1 = LpLoss(d=2, p=2), H1Loss(d=2)
    metrics = t.train(loader, tests, opt, sched, training_loss=h1, eval_losses={"h1": h1, "l2": l2})
    print("trainer", {k: r(v) for k, v in sorted(metrics.items()) if k != "epoch_train_time" and v is not None})
    print("trainer lr", r(opt.param_groups[0]["lr"], 6))
    return model


def checkpoint(model, x):
    with tempfile.TemporaryDirectory() as tmp:
        model.save_checkpoint(tmp, "fno")
        back = FNO.from_checkpoint(tmp, "fno")
    with torch.no_grad():
        same = torch.equal(back(x), model(x))
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    keys = list(torch.load(buf, weights_only=False))
    print("checkpoint", type(back).__name__, same, len(keys), keys[:2])


def main():
    x, y = darcy(24, 16, 0)
    xt, yt = darcy(8, 16, 1)
    xf, yf = darcy(8, 32, 1)
    print("data", tuple(x.shape), r(x.mean()), r(y.mean()), r(y.std()), tuple(xf.shape), r(yf.mean()))
    spectral_conv()
    losses(x, y)
    l2 = LpLoss(d=2, p=2)
    h1 = H1Loss(d=2)
    torch.manual_seed(0)
    fno = fit("fno", FNO(n_modes=(6, 6), in_channels=1, out_channels=1, hidden_channels=16, n_layers=2,
                         domain_padding=0.25), x, y, l2, steps=5)
    fno.eval()
    with torch.no_grad():
        print("fno eval", r(l2(fno(xt), yt)), "fine", tuple(fno(xf).shape), r(l2(fno(xf), yf)))
    torch.manual_seed(1)
    fit("tfno tucker", TFNO(n_modes=(6, 6), in_channels=1, out_channels=1, hidden_channels=16, n_layers=2,
                            factorization="tucker", rank=0.4), x, y, h1)
    torch.manual_seed(1)
    fit("tfno cp", TFNO(n_modes=(6, 6), in_channels=1, out_channels=1, hidden_channels=16, n_layers=2,
                        factorization="cp", rank=0.3, implementation="reconstructed"), x, y, l2)
    torch.manual_seed(2)
    uno = UNO(in_channels=1, out_channels=1, hidden_channels=8, lifting_channels=16, projection_channels=16,
              n_layers=3, uno_out_channels=[8, 16, 8], uno_n_modes=[[6, 6], [4, 4], [6, 6]],
              uno_scalings=[[1.0, 1.0], [0.5, 0.5], [2.0, 2.0]], horizontal_skips_map={2: 0}, channel_mlp_skip="linear")
    fit("uno", uno, x, y, l2, steps=3)
    model = trainer(x, y, xt, yt, xf, yf)
    checkpoint(model, xt)


if __name__ == "__main__":
    main()
