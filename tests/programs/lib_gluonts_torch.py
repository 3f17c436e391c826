"""GluonTS's PyTorch models: SimpleFeedForwardEstimator and DeepAREstimator (Student-t / LSTM) trained through
Lightning for a few batches on seeded synthetic series, probabilistic forecasts (sample paths, mean, quantiles)
from the predictor, and the torch building blocks used directly (StudentTOutput's distribution and loss, the
mean scaler, lagged-feature helpers)."""
import logging
import shutil
import tempfile
import warnings

import numpy as np
import pandas as pd
import torch

logging.disable(logging.WARNING)
warnings.filterwarnings("ignore")

from gluonts.dataset.common import ListDataset  # noqa: E402
from gluonts.torch.distributions import NormalOutput, StudentTOutput  # noqa: E402
from gluonts.torch.model.deepar import DeepAREstimator  # noqa: E402
from gluonts.torch.model.simple_feedforward import SimpleFeedForwardEstimator  # noqa: E402
from gluonts.torch.scaler import MeanScaler, StdScaler  # noqa: E402


def r(x, n=4):
    if isinstance(x, (torch.Tensor, np.ndarray)):
        x = np.asarray(x.detach() if isinstance(x, torch.Tensor) else x, dtype=np.float64)
        if x.size == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    return round(float(x), n)


rng = np.random.default_rng(0)
t = np.arange(120)
series = [10 + 3 * np.sin(2 * np.pi * t / 12 + k) + 0.5 * rng.standard_normal(120) + k for k in range(4)]
train = ListDataset([{"start": pd.Period("2020-01-01", freq="D"), "target": s[:-12]} for s in series], freq="D")
test = ListDataset([{"start": pd.Period("2020-01-01", freq="D"), "target": s} for s in series], freq="D")
trainer = dict(max_epochs=1, limit_train_batches=4, enable_progress_bar=False, enable_model_summary=False,
               logger=False, accelerator="cpu", deterministic=True, default_root_dir=tempfile.mkdtemp())

torch.manual_seed(0)
np.random.seed(0)
sff = SimpleFeedForwardEstimator(prediction_length=12, context_length=24, hidden_dimensions=[16, 16], batch_size=8,
                                 num_batches_per_epoch=4, trainer_kwargs=trainer)
pred = sff.train(train, shuffle_buffer_length=None)
print("sff params", sum(p.numel() for p in pred.prediction_net.parameters()))
torch.manual_seed(1)
np.random.seed(1)
fc = list(pred.predict(test, num_samples=50))
print("sff forecast", len(fc), type(fc[0]).__name__, fc[0].mean.shape, r(fc[0].mean[:4]))
print("sff quantiles", r(fc[1].quantile(0.1)[:3]), r(fc[1].quantile(0.9)[:3]))

torch.manual_seed(2)
np.random.seed(2)
deepar = DeepAREstimator(freq="D", prediction_length=6, context_length=12, num_layers=1, hidden_size=8, batch_size=8,
                         num_batches_per_epoch=4, lags_seq=[1, 2, 7], trainer_kwargs=trainer)
pred2 = deepar.train(train, shuffle_buffer_length=None)
print("deepar params", sum(p.numel() for p in pred2.prediction_net.parameters()))
torch.manual_seed(3)
np.random.seed(3)
fc2 = list(pred2.predict(test, num_samples=20))
print("deepar forecast", fc2[0].samples.shape, r(fc2[0].mean[:3], 3), r(np.median(fc2[2].samples, 0)[:3], 3))

# building blocks on their own
torch.manual_seed(4)
out = StudentTOutput()
proj = out.get_args_proj(5)
h = torch.randn(3, 5)
args = proj(h)
dist = out.distribution(args, loc=torch.zeros(3), scale=torch.ones(3))
y = torch.randn(3)
loss = out.loss(y, args, loc=torch.zeros(3), scale=torch.ones(3))
loss.mean().backward()
print("studentt", r(dist.mean), r(dist.variance), r(loss), r(next(proj.parameters()).grad.abs().sum()))
nd = NormalOutput().distribution(NormalOutput().get_args_proj(5)(h))
print("normal", r(nd.log_prob(y)), r(nd.icdf(torch.full((3,), 0.9))) if hasattr(nd, "icdf") else None)
data = torch.rand(2, 10, 1) * 5
obs = torch.ones(2, 10, 1)
obs[0, :3] = 0
sd, loc, scale = MeanScaler(dim=1, keepdim=True)(data, obs)
print("mean scaler", r(scale), r(loc), r(sd[0, 3:6]))
sd2, loc2, scale2 = StdScaler(dim=1, keepdim=True)(data, obs)
print("std scaler", r(loc2), r(scale2))
shutil.rmtree(trainer["default_root_dir"])
