"""pytorch-forecasting on lightning: a TimeSeriesDataSet built from a small synthetic pandas frame (groups,
static categoricals, known/unknown reals, a GroupNormalizer), dataloaders, and three models trained one epoch
each with ``lightning.pytorch.Trainer(accelerator="cpu")``: a TemporalFusionTransformer (QuantileLoss,
predictions with quantiles, interpretation), DeepAR (NormalDistributionLoss, sampled predictions) and N-BEATS;
then metrics on the predictions and a checkpoint reload.  Training losses print rounded; shapes, counts and
names exactly.
"""
import os
import tempfile
import warnings

import lightning.pytorch as pl
import numpy as np
import pandas as pd
import torch
from pytorch_forecasting import DeepAR, NBeats, TemporalFusionTransformer, TimeSeriesDataSet
from pytorch_forecasting.data import GroupNormalizer
from pytorch_forecasting.metrics import MAE, RMSE, SMAPE, NormalDistributionLoss, QuantileLoss

warnings.filterwarnings("ignore")


def r(x, n=3):
    return round(float(x), n)


def rl(t, n=3):
    return [r(v, n) for v in torch.as_tensor(t).flatten()]


def make_frame():
    rng = np.random.RandomState(0)
    rows = []
    for g in range(4):
        level, season = 10.0 + 3 * g, 1.0 + 0.5 * g
        for t in range(40):
            price = 1.0 + 0.1 * rng.randn()
            value = level + season * np.sin(2 * np.pi * t / 8) - 2.0 * (price - 1.0) + 0.3 * rng.randn()
            rows.append(dict(series=str(g), kind="a" if g % 2 else "b", time_idx=t, value=float(value),
                             price=float(price), month=str(t % 12)))
    return pd.DataFrame(rows)


def trainer(tmp, epochs=1):
    return pl.Trainer(accelerator="cpu", max_epochs=epochs, limit_train_batches=6, gradient_clip_val=0.1,
                      enable_progress_bar=False, enable_model_summary=False, logger=False,
                      default_root_dir=tmp, deterministic=True)


def main():
    tmp = tempfile.mkdtemp()
    pl.seed_everything(0, workers=True)
    data = make_frame()
    cutoff = data["time_idx"].max() - 6
    training = TimeSeriesDataSet(
        data[data.time_idx <= cutoff], time_idx="time_idx", target="value", group_ids=["series"],
        max_encoder_length=12, min_encoder_length=6, max_prediction_length=6,
        static_categoricals=["series", "kind"], time_varying_known_categoricals=["month"],
        time_varying_known_reals=["time_idx", "price"], time_varying_unknown_reals=["value"],
        target_normalizer=GroupNormalizer(groups=["series"], transformation="softplus"),
        add_relative_time_idx=True, add_target_scales=True, add_encoder_length=True)
    validation = TimeSeriesDataSet.from_dataset(training, data, predict=True, stop_randomization=True)
    print("dataset", len(training), len(validation), training.max_encoder_length, training.max_prediction_length,
          sorted(training.reals), training.categoricals)
    train_dl = training.to_dataloader(train=True, batch_size=16, num_workers=0)
    val_dl = validation.to_dataloader(train=False, batch_size=16, num_workers=0)
    x, (y, weight) = next(iter(val_dl))
    print("batch", sorted(x.keys()), tuple(x["encoder_cont"].shape), tuple(x["decoder_cat"].shape),
          tuple(y.shape), weight, rl(x["target_scale"][:2], 3))

    pl.seed_everything(1, workers=True)
    tft = TemporalFusionTransformer.from_dataset(training, hidden_size=8, attention_head_size=2, dropout=0.1,
                                                 hidden_continuous_size=4, loss=QuantileLoss(), learning_rate=0.03)
    print("tft params", sum(p.numel() for p in tft.parameters()), type(tft.loss).__name__, tft.loss.quantiles)
    t = trainer(tmp)
    t.fit(tft, train_dataloaders=train_dl, val_dataloaders=val_dl)
    print("tft fit", t.current_epoch, t.global_step, r(t.callback_metrics["train_loss_epoch"]),
          r(t.callback_metrics["val_loss"]))
    pred = tft.predict(val_dl, mode="quantiles", return_x=True, return_y=True, trainer_kwargs=dict(accelerator="cpu", logger=False, enable_progress_bar=False))
    print("tft quantiles", tuple(pred.output.shape), rl(pred.output[0, :2], 2))
    raw = tft.predict(val_dl, mode="raw", return_x=True, trainer_kwargs=dict(accelerator="cpu", logger=False, enable_progress_bar=False))
    print("tft raw", sorted(raw.output.keys()), tuple(raw.output["prediction"].shape),
          tuple(raw.output["encoder_attention"].shape))
    interpretation = tft.interpret_output(raw.output, reduction="sum")
    print("tft interpret", sorted(interpretation.keys()), tuple(interpretation["encoder_variables"].shape))
    point = tft.predict(val_dl, trainer_kwargs=dict(accelerator="cpu", logger=False, enable_progress_bar=False))
    actuals = torch.cat([y for _, (y, _) in iter(val_dl)])
    print("tft metrics", r(MAE()(point, actuals), 2), r(RMSE()(point, actuals), 2), r(SMAPE()(point, actuals), 2))
    ckpt = os.path.join(tmp, "tft.ckpt")
    t.save_checkpoint(ckpt)
    reloaded = TemporalFusionTransformer.load_from_checkpoint(ckpt)
    again = reloaded.predict(val_dl, trainer_kwargs=dict(accelerator="cpu", logger=False, enable_progress_bar=False))
    print("tft reload", type(reloaded).__name__, bool(torch.allclose(again, point, atol=1e-5)))

    pl.seed_everything(2, workers=True)
    deepar_data = TimeSeriesDataSet(
        data[data.time_idx <= cutoff], time_idx="time_idx", target="value", group_ids=["series"],
        max_encoder_length=12, max_prediction_length=6, static_categoricals=["series"],
        time_varying_known_reals=["time_idx", "price"], time_varying_unknown_reals=["value"],
        target_normalizer=GroupNormalizer(groups=["series"]))
    deepar_val = TimeSeriesDataSet.from_dataset(deepar_data, data, predict=True, stop_randomization=True)
    deepar = DeepAR.from_dataset(deepar_data, hidden_size=8, rnn_layers=1, loss=NormalDistributionLoss(),
                                 learning_rate=0.03)
    print("deepar params", sum(p.numel() for p in deepar.parameters()), type(deepar.rnn).__name__)
    t = trainer(tmp)
    t.fit(deepar, train_dataloaders=deepar_data.to_dataloader(train=True, batch_size=16, num_workers=0),
          val_dataloaders=deepar_val.to_dataloader(train=False, batch_size=16, num_workers=0))
    print("deepar fit", t.global_step, r(t.callback_metrics["train_loss_epoch"]), r(t.callback_metrics["val_loss"]))
    torch.manual_seed(3)
    samples = deepar.predict(deepar_val.to_dataloader(train=False, batch_size=16, num_workers=0), mode="samples",
                             n_samples=20, trainer_kwargs=dict(accelerator="cpu", logger=False, enable_progress_bar=False))
    print("deepar samples", tuple(samples.shape), r(samples.mean(), 1))

    pl.seed_everything(4, workers=True)
    nbeats_data = TimeSeriesDataSet(
        data[data.time_idx <= cutoff], time_idx="time_idx", target="value", group_ids=["series"],
        max_encoder_length=12, max_prediction_length=6, time_varying_unknown_reals=["value"],
        categorical_encoders={"series": __import__("pytorch_forecasting").data.NaNLabelEncoder().fit(data.series)},
        target_normalizer=GroupNormalizer(groups=["series"]))
    nbeats_val = TimeSeriesDataSet.from_dataset(nbeats_data, data, predict=True, stop_randomization=True)
    nbeats = NBeats.from_dataset(nbeats_data, widths=[16, 16], backcast_loss_ratio=0.1, learning_rate=0.01)
    print("nbeats params", sum(p.numel() for p in nbeats.parameters()), len(nbeats.net_blocks))
    t = trainer(tmp)
    t.fit(nbeats, train_dataloaders=nbeats_data.to_dataloader(train=True, batch_size=16, num_workers=0),
          val_dataloaders=nbeats_val.to_dataloader(train=False, batch_size=16, num_workers=0))
    print("nbeats fit", t.global_step, r(t.callback_metrics["train_loss_epoch"]), r(t.callback_metrics["val_loss"]))
    out = nbeats.predict(nbeats_val.to_dataloader(train=False, batch_size=16, num_workers=0), mode="raw",
                         trainer_kwargs=dict(accelerator="cpu", logger=False, enable_progress_bar=False))
    print("nbeats raw", sorted(out.keys()), tuple(out["prediction"].shape), tuple(out["backcast"].shape))


if __name__ == "__main__":
    main()
