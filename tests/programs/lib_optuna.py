"""optuna tuning a small torch model: a TPE study (seeded sampler) over the learning rate, the hidden size and
the optimizer of an MLP classifier, each trial reporting its validation loss per epoch with ``trial.report`` and
stopping when ``MedianPruner`` says ``should_prune``; then the best trial, trial states, intermediate values,
``enqueue_trial``, a GridSampler study, user attributes holding tensors' values, and a study in an in-memory
SQLite storage (optuna's RDB storage) re-loaded by name."""
import logging
import os
import tempfile

import optuna
import torch

optuna.logging.set_verbosity(optuna.logging.WARNING)
logging.getLogger("optuna").setLevel(logging.WARNING)


def r(x, n=4):
    return round(float(x), n)


def data():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(96, 6, generator=g)
    y = ((x[:, 0] * x[:, 1] + x[:, 2]) > 0).long()
    return x[:64], y[:64], x[64:], y[64:]


XT, YT, XV, YV = data()


def build(hidden):
    return torch.nn.Sequential(torch.nn.Linear(6, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 2))


def objective(trial):
    lr = trial.suggest_float("lr", 1e-3, 3e-1, log=True)
    hidden = trial.suggest_int("hidden", 4, 32, step=4)
    opt_name = trial.suggest_categorical("optimizer", ["Adam", "SGD"])
    torch.manual_seed(trial.number)
    model = build(hidden)
    opt = getattr(torch.optim, opt_name)(model.parameters(), lr=lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    for epoch in range(8):
        model.train()
        for i in range(0, 64, 16):
            opt.zero_grad()
            loss = loss_fn(model(XT[i:i + 16]), YT[i:i + 16])
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            logits = model(XV)
            val = loss_fn(logits, YV).item()
            acc = (logits.argmax(1) == YV).float().mean().item()
        trial.report(val, epoch)
        if trial.should_prune():
            raise optuna.TrialPruned()
    trial.set_user_attr("accuracy", acc)
    trial.set_user_attr("n_params", sum(p.numel() for p in model.parameters()))
    return val


def show(study, name):
    states = [t.state.name for t in study.trials]
    print(name, "states", states)
    for t in study.trials:
        iv = t.intermediate_values
        print(name, "trial", t.number, {k: (r(v, 4) if isinstance(v, float) else v) for k, v in t.params.items()},
              len(iv), r(iv[max(iv)]) if iv else None, None if t.value is None else r(t.value),
              {k: (r(v) if isinstance(v, float) else v) for k, v in t.user_attrs.items()})


def main():
    sampler = optuna.samplers.TPESampler(seed=0, n_startup_trials=4)
    pruner = optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=2)
    study = optuna.create_study(direction="minimize", sampler=sampler, pruner=pruner, study_name="mlp")
    study.enqueue_trial({"lr": 0.05, "hidden": 16, "optimizer": "Adam"})
    study.optimize(objective, n_trials=10)
    show(study, "tpe")
    best = study.best_trial
    print("best", best.number, {k: (r(v) if isinstance(v, float) else v) for k, v in best.params.items()},
          r(study.best_value), r(best.user_attrs["accuracy"]))
    pruned = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.PRUNED,))
    print("pruned", len(pruned), [t.number for t in pruned])

    # retrain the best configuration and check it reproduces the study's value
    trial = optuna.trial.FixedTrial(best.params, number=best.number)
    print("fixed trial", r(objective(trial)), r(trial.user_attrs["accuracy"]))

    grid = optuna.create_study(sampler=optuna.samplers.GridSampler({"lr": [0.01, 0.1], "hidden": [4, 8],
                                                                    "optimizer": ["SGD"]}, seed=0))
    grid.optimize(objective, n_trials=4)
    print("grid", sorted((t.params["lr"], t.params["hidden"], r(t.value)) for t in grid.trials))

    with tempfile.TemporaryDirectory() as tmp:
        url = "sqlite:///" + os.path.join(tmp, "optuna.db")
        s1 = optuna.create_study(study_name="stored", storage=url, sampler=optuna.samplers.RandomSampler(seed=1))
        s1.optimize(objective, n_trials=3)
        s2 = optuna.load_study(study_name="stored", storage=url)
        print("stored", len(s2.trials), r(s2.best_value), s2.best_params["optimizer"],
              [r(t.value) for t in s2.trials] == [r(t.value) for t in s1.trials])
        frame = s2.trials_dataframe(attrs=("number", "value", "params", "state"))
        print("dataframe", list(frame.columns), frame.shape)


if __name__ == "__main__":
    main()
