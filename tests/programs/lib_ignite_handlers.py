"""pytorch-ignite, more handlers: TerminateOnNan, warm-up around a torch ExponentialLR, EMAHandler with an evaluator
on the EMA model (MSE/MAE/RMSE), Checkpoint to disk and resuming from it, FastaiLRFinder, TopKCategoricalAccuracy on
a custom Engine, PiecewiseLinear, to_onehot/convert_tensor."""
import tempfile
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from ignite.engine import Engine, Events, create_supervised_trainer, create_supervised_evaluator
from ignite.handlers import (Checkpoint, DiskSaver, FastaiLRFinder, TerminateOnNan,
                             create_lr_scheduler_with_warmup, PiecewiseLinear, EMAHandler)
from ignite.metrics import MeanSquaredError, MeanAbsoluteError, RootMeanSquaredError, TopKCategoricalAccuracy
from ignite.utils import manual_seed, convert_tensor, to_onehot

manual_seed(0)
rng = np.random.default_rng(0)
x = torch.from_numpy(rng.standard_normal((128, 4)).astype(np.float32))
y = x @ torch.tensor([[1.0], [-2.0], [0.5], [0.0]]) + 0.1
loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
trainer = create_supervised_trainer(model, opt, nn.MSELoss())
trainer.add_event_handler(Events.ITERATION_COMPLETED, TerminateOnNan())
sched = create_lr_scheduler_with_warmup(torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9),
                                        warmup_start_value=0.0, warmup_duration=4)
trainer.add_event_handler(Events.ITERATION_STARTED, sched)
ema = EMAHandler(model, momentum=0.01)
ema.attach(trainer, name="ema_momentum", event=Events.ITERATION_COMPLETED)
evaluator = create_supervised_evaluator(ema.ema_model, metrics={"mse": MeanSquaredError(), "mae": MeanAbsoluteError(),
                                                                "rmse": RootMeanSquaredError()})


@trainer.on(Events.EPOCH_COMPLETED)
def val(engine):
    m = evaluator.run(loader).metrics
    print(f"epoch {engine.state.epoch} lr {opt.param_groups[0]['lr']:.5f} out {engine.state.output:.5f} "
          f"ema mse {m['mse']:.5f} mae {m['mae']:.5f} rmse {m['rmse']:.5f}")


with tempfile.TemporaryDirectory() as d:
    to_save = {"model": model, "optimizer": opt, "trainer": trainer}
    trainer.add_event_handler(Events.EPOCH_COMPLETED, Checkpoint(to_save, DiskSaver(d, require_empty=False), n_saved=2))
    trainer.run(loader, max_epochs=3)
    ckpt = torch.load(f"{d}/checkpoint_24.pt", weights_only=False)
    print("ckpt", sorted(ckpt), ckpt["trainer"])
    Checkpoint.load_objects(to_load=to_save, checkpoint=ckpt)
    trainer.run(loader, max_epochs=4)
    print("resumed to epoch", trainer.state.epoch, "iteration", trainer.state.iteration)

# LR finder
manual_seed(0)
model2 = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt2 = torch.optim.SGD(model2.parameters(), lr=1e-4)
tr2 = create_supervised_trainer(model2, opt2, nn.MSELoss())
finder = FastaiLRFinder()
with finder.attach(tr2, {"model": model2, "optimizer": opt2}, end_lr=10.0, num_iter=16) as t:
    t.run(loader, max_epochs=2)
res = finder.get_results()
print("lr finder", len(res["lr"]), [round(v, 5) for v in res["loss"][:4]])

# a custom engine with a PiecewiseLinear schedule and top-k accuracy
logits = torch.from_numpy(rng.standard_normal((20, 5)).astype(np.float32))
labels = torch.from_numpy(rng.integers(0, 5, 20))
acc = TopKCategoricalAccuracy(k=2)
ev = Engine(lambda e, b: b)
acc.attach(ev, "top2")
print("top2", ev.run([(logits[:10], labels[:10]), (logits[10:], labels[10:])]).metrics["top2"])
print("onehot", to_onehot(labels[:4], 5).tolist(), convert_tensor((x[:1], [y[:1]]))[1][0].tolist())
opt3 = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.0)
pw = PiecewiseLinear(opt3, "lr", milestones_values=[(0, 0.0), (3, 0.3), (6, 0.1)])
e3 = Engine(lambda e, b: opt3.param_groups[0]["lr"])
e3.add_event_handler(Events.ITERATION_STARTED, pw)
lrs = []
e3.add_event_handler(Events.ITERATION_COMPLETED, lambda e: lrs.append(round(e.state.output, 5)))
e3.run([0] * 8, max_epochs=1)
print("piecewise", lrs)
