"""poutyne: the Keras-like training loop for torch. A classifier fitted from tensors by Model.fit (shuffled
batches, string optimizer/loss/metrics: accuracy, top-k, F1, a torchmetrics metric) with callbacks (ClipNorm,
StepLR, EarlyStopping, ModelCheckpoint, BestModelRestore, CSVLogger, a one-cycle
OptimizerPolicy), the history it returns, evaluate with predictions, predict, a regression fitted through
fit_generator on DataLoaders with batches_per_step (gradient accumulation) and ReduceLROnPlateau, and a
ModelBundle that trains in a directory, keeps its best checkpoint and tests from it."""
import contextlib
import csv
import io
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torchmetrics
from poutyne import (BestModelRestore, ClipNorm, CSVLogger, EarlyStopping, Lambda, Model,
                     ModelBundle, ModelCheckpoint, OptimizerPolicy, ReduceLROnPlateau, StepLR, one_cycle_phases,
                     set_seeds)
from poutyne.framework import Callback
from torch.utils.data import DataLoader, TensorDataset


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, np.ndarray):
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


class LrRecorder(Callback):
    def __init__(self):
        super().__init__()
        self.lrs = []

    def on_train_batch_end(self, batch_number, logs):
        self.lrs.append(self.model.optimizer.param_groups[0]["lr"])


workdir = tempfile.mkdtemp()
set_seeds(0)
n, d, k = 96, 6, 3
x = torch.randn(n, d)
w_true = torch.randn(d, k)
y = (x @ w_true + 0.3 * torch.randn(n, k)).argmax(dim=1)
x_valid, y_valid = x[:32] + 0.1 * torch.randn(32, d), y[:32]

net = nn.Sequential(nn.Linear(d, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, k))
model = Model(net, "adam", "cross_entropy", batch_metrics=["accuracy", ("top2", "top2")],
              epoch_metrics=["f1", torchmetrics.classification.MulticlassAccuracy(num_classes=k)])
ckpt = os.path.join(workdir, "best.ckpt")
log_path = os.path.join(workdir, "log.tsv")
callbacks = [ClipNorm(net.parameters(), 1.0), StepLR(step_size=2, gamma=0.5),
             EarlyStopping(monitor="val_loss", patience=3, min_delta=1e-4),
             ModelCheckpoint(ckpt, monitor="val_acc", mode="max", save_best_only=True, verbose=False),
             BestModelRestore(monitor="val_loss", verbose=False), CSVLogger(log_path, separator="\t")]
history = model.fit(x, y, validation_data=(x_valid, y_valid), batch_size=16, epochs=5, verbose=False,
                    callbacks=callbacks)
print("epochs", len(history), sorted(history[0]))
for entry in history:
    print("epoch", entry["epoch"], r(entry["loss"]), r(entry["acc"]), r(entry["top2"]), r(entry["fscore_macro"]),
          r(entry["val_loss"]), r(entry["val_acc"]), r(entry["val_multiclass_accuracy"]))
print("lr after step schedule", r(model.optimizer.param_groups[0]["lr"], 6))
with open(log_path) as f:
    rows = list(csv.reader(f, delimiter="\t"))
print("csv", rows[0][:4], len(rows))
print("checkpoint", os.path.exists(ckpt), sorted(torch.load(ckpt))[:2])

loss, metrics, pred = model.evaluate(x_valid, y_valid, batch_size=8, return_pred=True, verbose=False)
print("evaluate", r(loss), r(metrics), pred.shape, r(pred[0]))
logits = model.predict(x[:5], batch_size=2, verbose=False)
print("predict", type(logits).__name__, r(logits.argmax(1)))
as_tensor = model.predict_on_batch(x[:2], convert_to_numpy=False)
print("predict tensor", type(as_tensor).__name__, r(as_tensor))

# one-cycle policy with a per-batch learning-rate record
set_seeds(1)
net2 = nn.Sequential(nn.Linear(d, 8), nn.Tanh(), nn.Linear(8, k))
opt = torch.optim.SGD(net2.parameters(), lr=0.1, momentum=0.9)
model2 = Model(net2, opt, nn.CrossEntropyLoss(label_smoothing=0.1), batch_metrics=["accuracy"])
recorder = LrRecorder()
policy = OptimizerPolicy(one_cycle_phases(steps=30, lr=(0.01, 0.2), momentum=(0.95, 0.85)))
hist2 = model2.fit(x, y, batch_size=16, epochs=5, verbose=False, callbacks=[policy, recorder])
print("one cycle", [r(h["loss"]) for h in hist2], [r(v, 5) for v in recorder.lrs[::4]])
print("momentum", r(opt.param_groups[0]["momentum"]))

# regression through fit_generator with gradient accumulation and ReduceLROnPlateau
set_seeds(2)
xr = torch.linspace(-2, 2, 64).unsqueeze(1)
yr = torch.sin(2 * xr) + 0.05 * torch.randn_like(xr)
train_loader = DataLoader(TensorDataset(xr, yr), batch_size=8, shuffle=True)
valid_loader = DataLoader(TensorDataset(xr[::4], yr[::4]), batch_size=8)
reg = nn.Sequential(Lambda(lambda t: torch.cat([t, t ** 2], dim=1)), nn.Linear(2, 16), nn.GELU(), nn.Linear(16, 1))
model3 = Model(reg, torch.optim.AdamW(reg.parameters(), lr=0.02, weight_decay=0.01), "mse", batch_metrics=["l1"])
plateau = ReduceLROnPlateau(monitor="val_loss", patience=0, factor=0.5)
hist3 = model3.fit_generator(train_loader, valid_loader, epochs=4, batches_per_step=2, verbose=False,
                             callbacks=[plateau])
print("regression", [(r(h["loss"]), r(h["l1"]), r(h["val_loss"])) for h in hist3])
print("regression lr", r(model3.optimizer.param_groups[0]["lr"], 6))
print("regression weights", r(model3.get_weight_copies()["1.weight"][:3]))

# ModelBundle: a training directory with the best checkpoint, test from it
set_seeds(3)
bundle_net = nn.Sequential(nn.Linear(d, 12), nn.ReLU(), nn.Linear(12, k))
bundle = ModelBundle.from_network(os.path.join(workdir, "bundle"), bundle_net, optimizer="sgd",
                                  task="classif", batch_metrics=["accuracy"])
train_loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
valid_loader = DataLoader(TensorDataset(x_valid, y_valid), batch_size=32)
with contextlib.redirect_stdout(io.StringIO()) as said:  # the bundle's checkpoint messages name the temp directory
    bundle_hist = bundle.train(train_loader, valid_loader, epochs=3, verbose=False)
    test_logs = bundle.test(valid_loader, verbose=False)
print("bundle messages", [line.split(",")[0].replace(workdir, "<dir>") for line in said.getvalue().splitlines()])
print("bundle", [(h["epoch"], r(h["loss"]), r(h["val_acc"])) for h in bundle_hist])
print("bundle test", sorted(test_logs), r(test_logs["test_loss"]), r(test_logs["test_acc"]))
print("bundle files", sorted(f for f in os.listdir(os.path.join(workdir, "bundle")) if not f.endswith(".csv")))
