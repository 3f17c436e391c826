"""wandb in offline mode with a torch model: ``wandb.init`` (config from a dict and argparse-like updates),
``wandb.watch(model, log="all", log_freq=1, log_graph=True)`` (forward hooks on the parameters, tensor hooks on
the gradients, 64-bin histograms computed with ``histc``), ``wandb.log`` of python numbers, 0-d tensors,
``wandb.Histogram`` of a tensor and of a numpy array, a ``wandb.Table`` and an artifact holding a state dict,
``unwatch``; then the run's summary and the records in the offline ``.wandb`` file read back with wandb's own
reader (histogram bins and counts per key, steps, config)."""
import glob
import json
import os
import tempfile
import time

import numpy as np
import torch

os.environ["WANDB_MODE"] = "offline"
os.environ["WANDB_SILENT"] = "true"
os.environ["WANDB_DISABLE_GIT"] = "true"
os.environ["WANDB_CONSOLE"] = "off"

import wandb  # noqa: E402
from wandb.proto import wandb_internal_pb2  # noqa: E402
from google.protobuf.message import DecodeError  # noqa: E402


def r(x, n=4):
    return round(float(x), n)


def hist_summary(h):
    """(sum of counts, number of bins, first and last bin edge) of a logged histogram dict."""
    return (int(sum(h["values"])), len(h["values"]), r(h["bins"][0], 3), r(h["bins"][-1], 3))


def scan(path):
    """The records of a ``.wandb`` file: a 7-byte header, then LevelDB's log format (32 KiB blocks of chunks:
    crc32c, length, type FULL=1/FIRST=2/MIDDLE=3/LAST=4) holding serialized ``Record`` protos."""
    data = open(path, "rb").read()
    assert data[:4] == b":W&B", data[:7]
    pos, pending = 7, b""
    while pos + 7 <= len(data):
        left = 32768 - pos % 32768
        if left < 7:  # block trailer padding
            pos += left
            continue
        length, kind = int.from_bytes(data[pos + 4:pos + 6], "little"), data[pos + 6]
        chunk, pos = data[pos + 7:pos + 7 + length], pos + 7 + length
        if kind == 0 and length == 0:
            continue
        pending = chunk if kind in (1, 2) else pending + chunk
        if kind in (1, 4):
            yield pending


def records(run_dir):
    """The run's records, once wandb-core (which writes the file) has written the exit record: finish() can
    return before it has, and a record it is writing when read does not parse yet."""
    path = glob.glob(os.path.join(run_dir, "*.wandb"))[0]
    for _ in range(300):
        recs = []
        try:
            for data in scan(path):
                rec = wandb_internal_pb2.Record()
                rec.ParseFromString(data)
                recs.append(rec)
        except DecodeError:  # a record wandb-core is still writing: read again
            recs = []
        if any(rec.WhichOneof("record_type") == "exit" for rec in recs):
            return recs
        time.sleep(0.1)
    raise TimeoutError(path)


def read_records(run_dir):
    history, config = [], {}
    for rec in records(run_dir):
        kind = rec.WhichOneof("record_type")
        if kind == "history":
            row = {}
            for item in rec.history.item:
                *path, leaf = list(item.nested_key) or [item.key]  # a histogram comes as nested keys
                node = row
                for p in path:
                    node = node.setdefault(p, {})
                node[leaf] = json.loads(item.value_json)
            history.append(row)
        elif kind in ("config", "run"):
            for item in (rec.config if kind == "config" else rec.run.config).update:
                config[item.key] = json.loads(item.value_json)
    return history, config


def main():
    tmp = tempfile.mkdtemp()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    run = wandb.init(project="torchlike", dir=tmp, config={"lr": 0.1, "hidden": 8})
    run.config.update({"optimizer": type(opt).__name__, "n_params": sum(p.numel() for p in model.parameters())})
    print("run", run.settings.mode, run.offline, dict(sorted(run.config.items())))
    wandb.watch(model, torch.nn.functional.cross_entropy, log="all", log_freq=1, log_graph=True)
    x = torch.randn(16, 5)
    y = torch.randint(0, 3, (16,))
    for step in range(3):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        acc = (model(x).argmax(1) == y).float().mean()
        wandb.log({"loss": loss.item(), "acc": acc, "grad_norm": model[0].weight.grad.norm(),
                   "logits": wandb.Histogram(model(x).detach()),
                   "np_hist": wandb.Histogram(np.linspace(-1, 1, 50) * (step + 1), num_bins=10)})
    wandb.unwatch(model)
    table = wandb.Table(columns=["i", "pred"], data=[[i, int(p)] for i, p in enumerate(model(x).argmax(1)[:4])])
    wandb.log({"preds": table, "weights": wandb.Histogram(model[2].weight.detach().flatten())})
    artifact = wandb.Artifact("weights", type="model")
    path = os.path.join(tmp, "state.pt")
    torch.save(model.state_dict(), path)
    artifact.add_file(path)
    run.log_artifact(artifact)
    run.summary["final_loss"] = loss.item()

    summary = {k: run.summary[k] for k in sorted(run.summary.keys())}
    print("summary keys", [k for k in summary if not k.startswith("_")])
    print("summary values", r(summary["loss"]), r(summary["acc"]), r(summary["grad_norm"]), r(summary["final_loss"]))
    run_dir = run.dir.rsplit("/files", 1)[0]
    wandb.finish()

    history, config = read_records(run_dir)
    print("config", {k: v.get("value", v) if isinstance(v, dict) else v for k, v in sorted(config.items())
                     if not k.startswith("_")})
    print("history rows", len(history), [row.get("_step") for row in history])
    print("history keys", sorted({k for row in history for k in row if not k.startswith("_")}))
    for row in history:
        scalars = {k: r(v) for k, v in sorted(row.items()) if isinstance(v, (int, float)) and not k.startswith("_")}
        hists = {k: hist_summary(v) for k, v in sorted(row.items())
                 if isinstance(v, dict) and v.get("_type") == "histogram"}
        print("row", row["_step"], scalars)
        for k, v in hists.items():
            print("  hist", k, v)
    graph = summary["graph_0"]
    with open(os.path.join(run_dir, "files", graph["path"])) as f:
        nodes = json.load(f)["nodes"]
    print("graph", graph["_type"], [(n["name"], n["class_name"], n["parameters"], n["output_shape"],
                                     n["num_parameters"]) for n in nodes])
    print("hist counts", history[0]["gradients/2.weight"]["values"], history[2]["logits"]["values"])
    table = history[3]["preds"]
    with open(os.path.join(run_dir, "files", table["path"])) as f:
        print("table", table["nrows"], table["ncols"], json.load(f)["data"])
    print("files", sorted(f for f in os.listdir(os.path.join(run_dir, "files")) if not f.startswith("wandb-")))


if __name__ == "__main__":
    main()
