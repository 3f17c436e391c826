"""pytorch-lightning: a LightningModule (small MLP, TensorDataset) through fit/validate/test/predict, self.log,
an LR-scheduler config, ModelCheckpoint + resuming from ckpt_path, EarlyStopping and load_from_checkpoint.
Prints every step's loss and the logged metrics (run with real torch and under ``python -m torchlike run``).

usage: lib_lightning_train.py WORKDIR
"""
import os
import sys
import warnings

import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import Callback, EarlyStopping, ModelCheckpoint
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

warnings.filterwarnings("ignore")
work = sys.argv[1]
os.makedirs(work, exist_ok=True)


class Regressor(pl.LightningModule):
    def __init__(self, hidden=16, lr=0.05):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(8, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self(x), y)
        self.log("train_loss", loss, on_step=True, on_epoch=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", nn.functional.mse_loss(self(x), y))

    def test_step(self, batch, batch_idx):
        x, y = batch
        self.log("test_loss", nn.functional.mse_loss(self(x), y))
        self.log("test_mae", (self(x) - y).abs().mean())

    def predict_step(self, batch, batch_idx):
        return self(batch[0])

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=self.hparams.lr, momentum=0.9)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "epoch"}}


class PrintLoss(Callback):
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        lr = trainer.optimizers[0].param_groups[0]["lr"]
        print(f"epoch {trainer.current_epoch} step {trainer.global_step} loss {outputs['loss'].item():.6f} lr {lr:.5f}")

    def on_validation_epoch_end(self, trainer, pl_module):
        if not trainer.sanity_checking:
            print(f"val epoch {trainer.current_epoch} val_loss {trainer.callback_metrics['val_loss'].item():.6f}")


def metrics(d):
    return " ".join(f"{k}={float(v):.6f}" for k, v in sorted(d.items()))


def trainer(**kw):
    base = dict(accelerator="cpu", devices=1, logger=False, enable_progress_bar=False,
                enable_model_summary=False, deterministic=True)
    base.update(kw)
    return pl.Trainer(**base)


pl.seed_everything(7, verbose=False)
g = torch.Generator().manual_seed(1)
x = torch.randn(64, 8, generator=g)
y = x @ torch.randn(8, generator=g) + 0.1 * torch.randn(64, generator=g)
train = DataLoader(TensorDataset(x[:48], y[:48]), batch_size=16, shuffle=True)
val = DataLoader(TensorDataset(x[48:], y[48:]), batch_size=16)

model = Regressor()
ckpt = ModelCheckpoint(dirpath=os.path.join(work, "ckpt"), monitor="val_loss", save_last=True,
                       filename="best-{epoch}")
t = trainer(max_epochs=2, callbacks=[PrintLoss(), ckpt], enable_checkpointing=True)
t.fit(model, train, val)
print("fit", metrics(t.callback_metrics), "global_step", t.global_step, "epoch", t.current_epoch)
print("best", os.path.basename(ckpt.best_model_path), f"{float(ckpt.best_model_score):.6f}")
print("validate", metrics(t.validate(model, val, verbose=False)[0]))
print("test", metrics(t.test(model, val, verbose=False)[0]))
preds = t.predict(model, val)
print("predict", len(preds), tuple(preds[0].shape), f"{float(torch.cat(preds).sum()):.6f}")

# resume: the last checkpoint continues to epoch 4 (optimizer, scheduler and loop state restored)
last = os.path.join(work, "ckpt", "last.ckpt")
state = torch.load(last, map_location="cpu", weights_only=False)
print("ckpt keys", sorted(state)[:8], "epoch", state["epoch"], "global_step", state["global_step"])
print("ckpt lr", state["lr_schedulers"][0]["_last_lr"], "hparams", dict(state["hyper_parameters"]))
resumed = Regressor()
t2 = trainer(max_epochs=4, callbacks=[PrintLoss()], enable_checkpointing=False)
t2.fit(resumed, train, val, ckpt_path=last)
print("resumed", metrics(t2.callback_metrics), "global_step", t2.global_step)

restored = Regressor.load_from_checkpoint(ckpt.best_model_path)
same = all(torch.equal(a, b) for a, b in zip(restored.state_dict().values(),
                                              torch.load(ckpt.best_model_path, weights_only=False)
                                              ["state_dict"].values()))
print("load_from_checkpoint", restored.hparams.hidden, same)

# early stopping: val_loss must improve by 10 to continue, so training stops after patience=1 more epoch
pl.seed_everything(3, verbose=False)
es = EarlyStopping(monitor="val_loss", min_delta=10.0, patience=1, mode="min")
t3 = trainer(max_epochs=6, callbacks=[es, PrintLoss()], enable_checkpointing=False)
t3.fit(Regressor(lr=0.01), train, val)
print("early_stop stopped_epoch", es.stopped_epoch, "current_epoch", t3.current_epoch, "wait", es.wait_count)
