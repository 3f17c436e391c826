"""torchtnt (torch's lightweight training framework): an AutoUnit (SGD with a StepLR stepped per epoch, gradient
accumulation, gradient-norm clipping, an EMA of the weights through torch's AveragedModel) trained with ``fit``
(train and eval loops, the Lambda and EarlyStopping callbacks, torchtnt's Timer), ``evaluate`` and ``predict``; a
hand-written TrainUnit under ``train`` with max_steps; a DistributedCheckpointSaver checkpoint restored into a fresh
unit; and torchtnt's utilities (seed, copy_data_to_device, get_module_summary, the RoundRobin MultiIterator).

torchtnt 0.2.4 imports ``pkg_resources`` (removed from setuptools 81) only to read torch's version when
``torch.__version__`` fails; a stub stands in for it."""
import sys
import tempfile
import types

sys.modules.setdefault("pkg_resources", types.ModuleType("pkg_resources"))

import torch  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402
from torchtnt.framework import AutoPredictUnit, AutoUnit, TrainUnit, evaluate, fit, predict, train  # noqa: E402
from torchtnt.framework.auto_unit import SWAParams  # noqa: E402
from torchtnt.framework.callbacks import DistributedCheckpointSaver, EarlyStopping, Lambda  # noqa: E402
from torchtnt.framework.state import State  # noqa: E402
from torchtnt.utils import copy_data_to_device, seed  # noqa: E402
from torchtnt.utils.data.iterators import RoundRobin, RoundRobinIterator, StoppingMechanism  # noqa: E402
from torchtnt.utils.early_stop_checker import EarlyStopChecker  # noqa: E402
from torchtnt.utils.module_summary import get_module_summary  # noqa: E402
from torchtnt.utils.timer import Timer  # noqa: E402


def r(x, n=4):
    return round(float(x), n)


seed(0)
X = torch.randn(64, 5)
Y = (X @ torch.tensor([1.0, -2.0, 0.5, 0.0, 1.5]) + 0.1 * torch.randn(64)).unsqueeze(1)
train_dl = DataLoader(TensorDataset(X[:48], Y[:48]), batch_size=8, shuffle=False)
eval_dl = DataLoader(TensorDataset(X[48:], Y[48:]), batch_size=8)


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))


class Regression(AutoUnit):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.train_losses, self.eval_losses, self.lrs = [], [], []

    def compute_loss(self, state, data):
        x, y = data
        out = self.module(x)
        return torch.nn.functional.mse_loss(out, y), out

    def configure_optimizers_and_lr_scheduler(self, module):
        opt = torch.optim.SGD(module.parameters(), lr=0.1, momentum=0.5)
        return opt, torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)

    def on_train_step_end(self, state, data, step, results):
        self.train_losses.append(r(results.loss))

    def on_eval_step_end(self, state, data, step, loss, outputs):
        self.eval_losses.append(r(loss))

    def on_train_epoch_end(self, state):
        super().on_train_epoch_end(state)
        self.lrs.append(self.optimizer.param_groups[0]["lr"])


seed(1)
events = []
unit = Regression(module=mlp(), device=torch.device("cpu"), gradient_accumulation_steps=2, clip_grad_norm=1.0,
                  swa_params=SWAParams(warmup_steps_or_epochs=1, step_or_epoch_update_freq=1,
                                       averaging_method="ema", ema_decay=0.5))
timer = Timer()
fit(unit, train_dl, eval_dl, max_epochs=3,
    callbacks=[Lambda(on_train_epoch_start=lambda s, u: events.append(("start", u.train_progress.num_epochs_completed)),
                      on_eval_end=lambda s, u: events.append(("eval", u.eval_progress.num_epochs_completed)))],
    timer=timer)
print("fit train losses", unit.train_losses)
print("fit eval losses", unit.eval_losses)
print("lrs", unit.lrs, "events", events)
print("progress", unit.train_progress.num_epochs_completed, unit.train_progress.num_steps_completed,
      unit.eval_progress.num_steps_completed)
print("swa model", type(unit.swa_model).__name__, r(sum(p.sum() for p in unit.swa_model.parameters())),
      r(sum(p.sum() for p in unit.module.parameters())))
print("timer keys", sorted(timer.recorded_durations)[:4], len(timer.recorded_durations["Regression.compute_loss"]))

# evaluate and predict with the trained module
unit.eval_losses.clear()
evaluate(unit, eval_dl)
print("evaluate", unit.eval_losses)


class Predictor(AutoPredictUnit):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.outputs = []

    def on_predict_step_end(self, state, data, step, outputs):
        self.outputs.append(outputs)


pred = Predictor(module=unit.module)
predict(pred, DataLoader(X[:6], batch_size=3))
print("predict", [[r(v) for v in o.flatten()] for o in pred.outputs])

# early stopping on a monitored attribute
seed(2)
es_unit = Regression(module=mlp())
es_unit.monitored = 1.0
es_unit.on_eval_epoch_end = lambda state: setattr(es_unit, "monitored", r(sum(es_unit.eval_losses[-2:])))
fit(es_unit, train_dl, eval_dl, max_epochs=10,
    callbacks=[EarlyStopping("monitored", EarlyStopChecker("min", patience=1, min_delta=10.0))])
print("early stop epochs", es_unit.train_progress.num_epochs_completed, es_unit.monitored)


# a hand-written TrainUnit
class Manual(TrainUnit):
    def __init__(self):
        super().__init__()
        seed(3)
        self.model = mlp()
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-2)
        self.losses = []

    def train_step(self, state: State, data: tuple):
        x, y = data
        loss = torch.nn.functional.smooth_l1_loss(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.losses.append(r(loss))


manual = Manual()
train(manual, train_dl, max_steps=8)
print("manual", manual.losses, manual.train_progress.num_steps_completed, sorted(manual.tracked_modules()),
      sorted(manual.tracked_optimizers()))

# checkpoint with torch.distributed.checkpoint and restore into a fresh unit
with tempfile.TemporaryDirectory() as d:
    seed(4)
    u1 = Regression(module=mlp())
    saver = DistributedCheckpointSaver(d, save_every_n_epochs=1)
    train(u1, train_dl, max_epochs=2, callbacks=[saver])
    seed(5)
    u2 = Regression(module=mlp())
    ckpt = sorted(p for p in __import__("os").listdir(d) if p.startswith("epoch"))
    DistributedCheckpointSaver.restore(f"{d}/{ckpt[-1]}", u2)
    same = all(torch.equal(a, b) for a, b in zip(u1.module.state_dict().values(), u2.module.state_dict().values()))
    print("checkpoint", ckpt, same, u2.train_progress.num_epochs_completed,
          r(u2.optimizer.state_dict()["param_groups"][0]["lr"], 6))

# utilities
batch = copy_data_to_device({"x": X[:2], "y": [Y[:2], (3, "s")]}, torch.device("cpu"))
print("copy", sorted(batch), type(batch["y"]).__name__, batch["y"][1], r(batch["x"].sum()))
summary = get_module_summary(mlp(), module_args=(torch.randn(4, 5),))
print("summary", summary.module_type, summary.num_parameters, summary.num_trainable_parameters,
      summary.size_bytes, summary.flops_forward, summary.flops_backward, sorted(summary.submodule_summaries))
loaders = {"a": DataLoader(torch.arange(4), batch_size=2), "b": DataLoader(torch.arange(10, 15), batch_size=2)}
it = RoundRobinIterator(loaders, RoundRobin(stopping_mechanism=StoppingMechanism.ALL_DATASETS_EXHAUSTED))
print("round robin", [(k, v.tolist()) for batch in it for k, v in batch.items()])
