"""pytorch-ignite: supervised trainer and evaluator engines with metrics (Accuracy, Loss, Precision, Recall,
ConfusionMatrix, RunningAverage), event handlers, an LR scheduler, early stopping and a checkpoint of the best
model, on a small synthetic classification task."""
import tempfile

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from ignite.engine import Events, create_supervised_trainer, create_supervised_evaluator
from ignite.metrics import Accuracy, Loss, Precision, Recall, ConfusionMatrix, RunningAverage, Fbeta
from ignite.handlers import EarlyStopping, ModelCheckpoint, global_step_from_engine, LRScheduler
from ignite.handlers.param_scheduler import CosineAnnealingScheduler
from ignite.utils import manual_seed

manual_seed(0)
rng = np.random.default_rng(0)
x = torch.from_numpy(rng.standard_normal((256, 10)).astype(np.float32))
w = torch.from_numpy(rng.standard_normal((10, 3)).astype(np.float32))
y = (x @ w).argmax(1)
train_loader = DataLoader(TensorDataset(x[:192], y[:192]), batch_size=32, shuffle=True)
val_loader = DataLoader(TensorDataset(x[192:], y[192:]), batch_size=32)

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
criterion = nn.CrossEntropyLoss()
trainer = create_supervised_trainer(model, optimizer, criterion)
RunningAverage(output_transform=lambda loss: loss).attach(trainer, "avg_loss")
precision = Precision(average=False)
recall = Recall(average=False)
metrics = {"accuracy": Accuracy(), "loss": Loss(criterion), "precision": precision, "recall": recall,
           "f1": Fbeta(1.0, precision=precision, recall=recall), "cm": ConfusionMatrix(num_classes=3)}
evaluator = create_supervised_evaluator(model, metrics=metrics)
trainer.add_event_handler(Events.ITERATION_STARTED, CosineAnnealingScheduler(optimizer, "lr", 0.1, 0.01, 12))


@trainer.on(Events.ITERATION_COMPLETED(every=3))
def log_training(engine):
    print(f"epoch {engine.state.epoch} iter {engine.state.iteration} loss {engine.state.output:.5f} "
          f"avg {engine.state.metrics['avg_loss']:.5f} lr {optimizer.param_groups[0]['lr']:.5f}")


@trainer.on(Events.EPOCH_COMPLETED)
def log_validation(engine):
    evaluator.run(val_loader)
    m = evaluator.state.metrics
    print(f"val epoch {engine.state.epoch} acc {m['accuracy']:.5f} loss {m['loss']:.5f} "
          f"f1 {m['f1']:.5f} precision {[round(v, 5) for v in m['precision'].tolist()]} "
          f"recall {[round(v, 5) for v in m['recall'].tolist()]}")
    print("confusion", m["cm"].tolist())


def score(engine):
    return -engine.state.metrics["loss"]


evaluator.add_event_handler(Events.COMPLETED, EarlyStopping(patience=2, score_function=score, trainer=trainer))
with tempfile.TemporaryDirectory() as d:
    ckpt = ModelCheckpoint(d, "best", n_saved=1, score_function=score, score_name="neg_loss",
                           global_step_transform=global_step_from_engine(trainer))
    evaluator.add_event_handler(Events.COMPLETED, ckpt, {"model": model})
    state = trainer.run(train_loader, max_epochs=4)
    print("finished epochs", state.epoch, "iterations", state.iteration)
    best = torch.load(ckpt.last_checkpoint)
    print("checkpoint keys", sorted(best.keys()))
    fresh = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 3))
    fresh.load_state_dict(best)
    print("reloaded val acc", evaluator.run(val_loader).metrics["accuracy"])

# a second scheduler style: ignite's wrapper around a torch lr_scheduler
opt2 = torch.optim.Adam(model.parameters(), lr=1e-2)
sched = LRScheduler(torch.optim.lr_scheduler.StepLR(opt2, step_size=2, gamma=0.5))
lrs = []
for _ in range(5):
    sched(None)
    lrs.append(round(opt2.param_groups[0]["lr"], 6))
print("steplr", lrs)
