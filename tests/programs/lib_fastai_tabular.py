"""fastai's tabular stack (fastai.tabular.all): a seeded synthetic pandas frame with categorical, continuous and
missing values through TabularPandas (Categorify, FillMissing, Normalize, a random splitter), TabularDataLoaders,
tabular_learner (embeddings sized by emb_sz_rule, BatchNorm/Linear/ReLU blocks) trained with fit_one_cycle
(OneCycle scheduling of lr and Adam momentum through fastai's own Optimizer), validation metrics, get_preds,
predict on one row, a regression learner with y_range (sigmoid_range), and save/load of the model."""
import os
import tempfile
import warnings

import numpy as np
import pandas as pd
import torch
from fastai.tabular.all import (Categorify, CategoryBlock, FillMissing, Normalize, RandomSplitter, RegressionBlock,
                                TabularPandas, accuracy, rmse, set_seed, tabular_learner)

warnings.filterwarnings("ignore")


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


rng = np.random.default_rng(0)
n = 240
df = pd.DataFrame({
    "color": rng.choice(["red", "green", "blue", "gray"], n),
    "size": rng.choice(["S", "M", "L"], n),
    "age": rng.normal(40, 12, n).round(1),
    "income": rng.lognormal(3, 0.5, n).round(2),
})
df.loc[rng.choice(n, 20, replace=False), "age"] = np.nan
score = (df.color.isin(["red", "blue"]).astype(float) + (df["size"] == "L") * 0.7
         + 0.03 * df.age.fillna(40) - 0.02 * df.income + rng.normal(0, 0.3, n))
df["label"] = np.where(score > score.median(), "yes", "no")
df["target"] = score.round(3)

set_seed(0, reproducible=True)
splits = RandomSplitter(valid_pct=0.25, seed=0)(range(n))
print("splits", len(splits[0]), len(splits[1]), [int(i) for i in sorted(splits[1])[:5]])
to = TabularPandas(df, procs=[Categorify, FillMissing, Normalize], cat_names=["color", "size"],
                   cont_names=["age", "income"], y_names="label", y_block=CategoryBlock(), splits=splits)
print("procs", list(to.cat_names), list(to.cont_names), to.classes["color"].items[:3],
      r(float(to.train.xs.age.mean()), 3), int(to.train.xs.age_na.sum()))
dls = to.dataloaders(bs=32, num_workers=0)
set_seed(1, reproducible=True)
learn = tabular_learner(dls, layers=[16, 8], metrics=accuracy)
print("model", [type(m).__name__ for m in learn.model.layers.modules()][:8], learn.model.embeds[0])
print("params", sum(p.numel() for p in learn.model.parameters()))
with learn.no_bar(), learn.no_logging():
    learn.fit_one_cycle(4, lr_max=3e-2)
for epoch, vals in enumerate(learn.recorder.values):
    print("epoch", epoch, r(list(vals)))
print("lrs", r(learn.recorder.lrs[::4]), "moms", r(learn.recorder.moms[::4]))
with learn.no_bar():
    preds, targs = learn.get_preds()
print("preds", tuple(preds.shape), r(preds[:3]), r(accuracy(preds, targs)))
with learn.no_bar():
    row, clas, probs = learn.predict(df.iloc[0])
print("predict", clas.item(), r(probs))

# regression with y_range
set_seed(2, reproducible=True)
to_r = TabularPandas(df, procs=[Categorify, FillMissing, Normalize], cat_names=["color", "size"],
                     cont_names=["age", "income"], y_names="target", y_block=RegressionBlock(), splits=splits)
dls_r = to_r.dataloaders(bs=32, num_workers=0)
set_seed(3, reproducible=True)
reg = tabular_learner(dls_r, layers=[12], y_range=(-2.0, 5.0), metrics=rmse)
with reg.no_bar(), reg.no_logging():
    reg.fit(2, lr=3e-3)
print("regression", [r(list(v)) for v in reg.recorder.values])
with tempfile.TemporaryDirectory() as d:
    reg.path = reg.model_dir = type(reg.path)(d)
    reg.save("m")
    before = [p.detach().clone() for p in reg.model.parameters()]
    with torch.no_grad():
        for p in reg.model.parameters():
            p.zero_()
    reg.load("m")
    print("reloaded", all(bool((a == b.detach()).all()) for a, b in zip(before, reg.model.parameters())),
          sorted(os.listdir(d)))
