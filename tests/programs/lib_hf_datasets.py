"""Hugging Face datasets with torch: an in-memory Dataset (from_dict), .map returning tensors, with_format/set_format
"torch" (rows, columns, slices, nested lists, dtypes), train_test_split, shuffle(seed=), a torch DataLoader over it
(collate fn, num_workers 0 and 2), to_iterable_dataset, Dataset.from_generator yielding torch values,
save_to_disk/load_from_disk, and a small model trained a few steps from the batches."""
import os
import tempfile

import numpy as np
import torch
import datasets
from datasets import Dataset, Features, Sequence, Value, load_from_disk
from torch.utils.data import DataLoader

datasets.disable_progress_bars()
datasets.logging.set_verbosity_error()
torch.manual_seed(0)


def r(x, n=4):
    return round(float(x), n)


def desc(t):
    """A short fact line for a value: a tensor's type, dtype and shape, or a Python value's type."""
    if isinstance(t, torch.Tensor):
        return f"{type(t).__name__}:{t.dtype}:{tuple(t.shape)}"
    if isinstance(t, list):
        return f"list[{len(t)}]:" + (desc(t[0]) if t else "")
    return type(t).__name__


def add_norm(ex):
    x = torch.tensor(ex["x"])
    return {"norm": x.norm(), "x2": x * 2, "half": x.to(torch.float16)}


def main():
    # datasets finds torch through importlib (find_spec, then the package metadata's version)
    print("torch available", datasets.config.TORCH_AVAILABLE, datasets.config.TORCH_VERSION.release,
          "torch" in datasets.formatting._FORMAT_TYPES)
    rng = np.random.default_rng(0)
    n = 40
    feats = rng.standard_normal((n, 4)).astype(np.float32)
    labels = (feats[:, 0] + feats[:, 1] > 0).astype(np.int64)
    ds = Dataset.from_dict({
        "x": feats.tolist(),
        "y": labels.tolist(),
        "w": rng.random(n).tolist(),
        "ids": [[i, i + 1, i + 2][: 1 + i % 3] for i in range(n)],
        "text": [f"row{i}" for i in range(n)],
        "flag": [bool(i % 2) for i in range(n)],
    })
    print("features", {k: str(v) for k, v in ds.features.items() if k != "ids"})

    # .map producing torch tensors (single rows and batched)
    ds2 = ds.map(add_norm)
    print("map features", str(ds2.features["norm"]), str(ds2.features["x2"]), str(ds2.features["half"]))

    def batched(b):
        x = torch.tensor(b["x"])
        return {"s": x.sum(1), "argmax": x.argmax(1), "pair": torch.stack([x[:, 0], x[:, 1]], 1)}

    ds3 = ds2.map(batched, batched=True, batch_size=16)
    print("batched map features", str(ds3.features["s"]), str(ds3.features["argmax"]), str(ds3.features["pair"]))
    print("map values", r(ds3[0]["norm"]), [r(v) for v in ds3[3]["x2"]], ds3[5]["argmax"], r(sum(ds3["s"])))

    # torch format: rows, columns, slices, dtypes
    t = ds3.with_format("torch")
    row = t[0]
    print("row", {k: desc(v) for k, v in sorted(row.items())})
    col = t["x"][:]
    print("column x", desc(col), r(col.sum()), "y", desc(t["y"][:]), int(t["y"][:].sum()), "column iter", desc(next(iter(t["y"]))))
    sl = t[2:7]
    print("slice", {k: desc(v) for k, v in sorted(sl.items())})
    print("slice values", [r(v) for v in sl["w"].tolist()], sl["flag"].tolist(), sl["text"])
    print("ids rows", [v.tolist() for v in t[0:4]["ids"]])
    print("half", t[1]["half"].dtype, [r(v, 3) for v in t[1]["half"].tolist()])
    idx = t[[3, 1, 8]]
    print("index list", idx["y"].tolist(), desc(idx["x"]))

    t.set_format(type="torch", columns=["x", "y"])
    print("set_format columns", sorted(t[0].keys()), t.format["type"], t.format["columns"])
    t.set_format(type="torch", columns=["x"], output_all_columns=True)
    print("output_all_columns", sorted((k, type(v).__name__) for k, v in t[0].items())[:4])
    t.reset_format()
    print("reset format", type(t[0]["x"]).__name__)

    # dtype kwargs to the formatter
    f64 = ds.with_format("torch", columns=["x"], dtype=torch.float64)
    print("dtype kwarg", f64[0]["x"].dtype)

    # features with explicit types
    typed = Dataset.from_dict(
        {"a": [[1, 2], [3, 4]], "b": [0.5, 1.5], "c": [1, 2], "d": [[1.0, 2.0], [3.0, 4.0]]},
        features=Features({"a": Sequence(Value("int32")), "b": Value("float64"), "c": Value("uint8"),
                           "d": Sequence(Value("float16"))})).with_format("torch")
    print("typed", {k: str(v.dtype) for k, v in sorted(typed[:].items())})

    # train_test_split and shuffle
    split = ds.train_test_split(test_size=0.25, seed=1)
    print("split", split["train"].num_rows, split["test"].num_rows, split["test"]["text"][:5])
    sh = ds.shuffle(seed=3)
    print("shuffle", sh["text"][:6])
    print("select/filter", list(ds.select(range(5))["y"]), ds.filter(lambda e: e["y"] == 1).num_rows)

    # DataLoader over a torch-format dataset: default collate and a custom one
    train = split["train"].with_format("torch", columns=["x", "y", "w"])
    dl = DataLoader(train, batch_size=8, shuffle=False)
    b0 = next(iter(dl))
    print("default collate", {k: desc(v) for k, v in sorted(b0.items())}, b0["y"].tolist())

    def collate(rows):
        return {"x": torch.stack([r_["x"] for r_ in rows]), "y": torch.stack([r_["y"] for r_ in rows]).float(),
                "n": len(rows)}

    g = torch.Generator().manual_seed(0)
    dl2 = DataLoader(train, batch_size=8, shuffle=True, generator=g, collate_fn=collate)
    print("custom collate", [(b["n"], desc(b["x"]), b["y"].dtype) for b in dl2][:2], len(dl2))

    dlw = DataLoader(train, batch_size=10, num_workers=2)
    sums = [(r(b["x"].sum()), b["y"].tolist()[:3]) for b in dlw]
    print("workers 2", sums)
    dl0 = DataLoader(train, batch_size=10, num_workers=0)
    print("workers 0 same", [(r(b["x"].sum()), b["y"].tolist()[:3]) for b in dl0] == sums)

    # train a small model a few steps
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for epoch in range(3):
        for b in dl:
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(b["x"]), b["y"], reduction="none")
            loss = (loss * b["w"].float()).mean()
            loss.backward()
            opt.step()
            losses.append(r(loss.item()))
    print("losses", losses[:3], losses[-3:])
    test = split["test"].with_format("torch")
    with torch.no_grad():
        acc = (model(test[:]["x"]).argmax(1) == test[:]["y"]).float().mean()
    print("test acc", r(acc))

    # map with the model (tensor outputs written back to arrow)
    with torch.no_grad():
        pred = split["test"].with_format("torch").map(
            lambda b: {"logits": model(b["x"]), "pred": model(b["x"]).argmax(1)}, batched=True, batch_size=4)
    print("pred map", str(pred.features["logits"]), pred["pred"][:6].tolist(), desc(pred.with_format("torch")[:]["logits"]))

    # IterableDataset
    it = ds.to_iterable_dataset(num_shards=2).with_format("torch")
    print("iterable isinstance", isinstance(it, torch.utils.data.IterableDataset))
    first = next(iter(it))
    print("iterable row", {k: desc(v) for k, v in sorted(first.items()) if k in ("x", "y", "w", "flag")})
    itm = it.map(lambda e: {"z": e["x"] * 3}).shuffle(seed=0, buffer_size=8)
    zs = [r(e["z"].sum()) for e, _ in zip(itm, range(5))]
    print("iterable map shuffle", zs)
    itl = DataLoader(ds.to_iterable_dataset().with_format("torch").select_columns(["x", "y"]), batch_size=16)
    print("iterable loader", [desc(b["x"]) for b in itl], [int(b["y"].sum()) for b in itl])
    itw = DataLoader(ds.to_iterable_dataset(num_shards=2).with_format("torch").select_columns(["y"]),
                     batch_size=8, num_workers=2)
    print("iterable workers", sorted(int(v) for b in itw for v in b["y"]) == sorted(labels.tolist()))

    with tempfile.TemporaryDirectory() as tmp:
        # from_generator with torch values
        def gen(k):
            gg = torch.Generator().manual_seed(7)
            for i in range(k):
                yield {"v": torch.randn(3, generator=gg), "i": torch.tensor(i), "m": torch.eye(2) * i,
                       "b": torch.tensor([True, False]), "l": torch.arange(i % 3 + 1)}

        gd = Dataset.from_generator(gen, gen_kwargs={"k": 6}, cache_dir=os.path.join(tmp, "cache"))
        print("generator features", {k: str(v) for k, v in sorted(gd.features.items())})
        gt = gd.with_format("torch")
        print("generator values", [r(v) for v in gt[0]["v"].tolist()], gt[:]["i"].tolist(), desc(gt[:]["m"]),
              gt[5]["m"].tolist(), gt[1]["b"].tolist(), [v.tolist() for v in gt[:]["l"]])

        # save_to_disk / load_from_disk keeps the format and values
        path = os.path.join(tmp, "saved")
        ds3.with_format("torch", columns=["x", "y", "s"]).save_to_disk(path)
        back = load_from_disk(path)
        print("reloaded", back.num_rows, back.format["type"], back.format["columns"], desc(back[0]["x"]),
              r(back[:]["s"].sum()))
        dd = split.with_format("torch")
        dd.save_to_disk(os.path.join(tmp, "dd"))
        dd2 = load_from_disk(os.path.join(tmp, "dd"))
        print("dataset dict", sorted(dd2.keys()), dd2["test"].num_rows, desc(dd2["train"][:]["x"]))

    # torch tensors as input to from_dict and as a map's fn_kwargs (fingerprint hashing pickles them)
    tds = Dataset.from_dict({"t": torch.arange(6).reshape(3, 2), "f": torch.linspace(0, 1, 3)})
    print("from tensors", {k: str(v) for k, v in sorted(tds.features.items())}, list(tds["t"]), list(tds["f"]))
    scale = torch.tensor([10.0, 100.0])
    sc = tds.with_format("torch").map(lambda e, s: {"u": e["t"] * s}, fn_kwargs={"s": scale})
    print("fn_kwargs", sc[:]["u"].tolist(), sc[:]["u"].dtype)
    fp1 = ds.map(lambda e, s: {"k": 1}, fn_kwargs={"s": scale})._fingerprint
    fp2 = ds.map(lambda e, s: {"k": 1}, fn_kwargs={"s": scale.clone()})._fingerprint
    fp3 = ds.map(lambda e, s: {"k": 1}, fn_kwargs={"s": scale + 1})._fingerprint
    # a function using torch hashes the same each time (dill records the torch module by name): map is cached
    fp4 = ds.map(add_norm)._fingerprint, ds.map(add_norm)._fingerprint
    print("fingerprints", fp1 == fp2, fp1 == fp3, fp4[0] == fp4[1])

    # map in 2 worker processes (the function is pickled with dill), and an on-the-fly transform
    mp = ds.map(add_norm, num_proc=2).with_format("torch")
    print("num_proc map", r(mp[:]["norm"].sum()), desc(mp[:]["half"]), mp[:]["x2"].equal(ds3.with_format("torch")[:]["x2"]))

    def transform(batch):
        x = torch.tensor(batch["x"])
        return {"z": torch.nn.functional.softmax(x, -1), "n": torch.tensor([len(t) for t in batch["text"]])}

    tr = ds.with_transform(transform)
    print("with_transform", desc(tr[0:3]["z"]), [r(v) for v in tr[0:3]["z"].sum(1).tolist()], tr[5]["n"].tolist())


if __name__ == "__main__":
    main()
