"""mlflow (mlflow-skinny) with a torch model: a local file store under a temporary directory, params and per-step
metrics of a small training run read back with MlflowClient, a signature inferred from tensors and from numpy,
``mlflow.pytorch.log_model`` / ``save_model`` of a whole nn.Module (pickled with cloudpickle; the flavor records
``torch.__version__`` and the pip requirements it infers), ``load_model`` back as a module and as a pyfunc whose
``predict`` takes numpy, a state-dict artifact, and ``mlflow.pytorch.autolog`` around a Lightning fit."""
import logging
import os
import tempfile
import warnings

import numpy as np
import torch
import yaml

warnings.filterwarnings("ignore")
logging.getLogger("mlflow").setLevel(logging.ERROR)
os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"  # mlflow 3.18 refuses the file store unless asked for
os.environ["MLFLOW_ALLOW_MODEL_CODE_EXECUTION"] = "true"  # and unpickling a model unless allowed

import mlflow  # noqa: E402
import mlflow.pytorch  # noqa: E402
from mlflow.models import infer_signature  # noqa: E402
from mlflow.tracking import MlflowClient  # noqa: E402


def r(x, n=4):
    return round(float(x), n)


class MLP(torch.nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(4, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 2))
        self.register_buffer("scale", torch.tensor(0.5))

    def forward(self, x):
        return self.net(x) * self.scale


def spec(signature):
    return [(s.name, str(s.type), s.shape) if hasattr(s, "shape") else (s.name, str(s.type))
            for s in signature.inputs.inputs] + ["->"] + \
        [(s.name, str(s.type), s.shape) if hasattr(s, "shape") else (s.name, str(s.type))
         for s in signature.outputs.inputs]


def train_and_log(tmp, client):
    torch.manual_seed(0)
    x = torch.randn(32, 4)
    y = torch.stack([x[:, 0] - x[:, 1], x[:, 2] * 0.5], 1)
    model = MLP()
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    mlflow.set_experiment("torchlike-mlflow")
    with mlflow.start_run(run_name="mlp") as run:
        mlflow.log_params({"lr": 0.05, "hidden": 8, "optimizer": type(opt).__name__})
        mlflow.log_param("dtype", str(x.dtype))
        for step in range(6):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            mlflow.log_metric("loss", loss.item(), step=step)
        mlflow.log_metrics({"final_loss": loss.item(), "weight_norm": model.net[0].weight.norm().item()})
        mlflow.set_tag("framework", "torch")
        with torch.no_grad():
            pred = model(x[:5])
        sig = infer_signature(x[:5].numpy(), pred.numpy())
        print("signature numpy", spec(sig))
        # mlflow 3.18's default format: torch.export (a .pt2 traced with the input example, batch dim dynamic)
        # (pip requirements given: inferring them loads the model in a subprocess, ~30 s; save_model below does)
        info = mlflow.pytorch.log_model(model, name="model", signature=sig, input_example=x[:2].numpy(),
                                        pip_requirements=["torch", "mlflow"])
        # the whole module pickled with cloudpickle (MLP is defined in __main__, so by value)
        info_pkl = mlflow.pytorch.log_model(model, name="model_pickle", serialization_format="pickle",
                                            signature=sig, pip_requirements=["torch", "mlflow"])
        mlflow.log_dict({k: list(v.shape) for k, v in model.state_dict().items()}, "state_shapes.json")
        sd_path = os.path.join(tmp, "state.pt")
        torch.save(model.state_dict(), sd_path)
        mlflow.log_artifact(sd_path, "weights")
    run = client.get_run(run.info.run_id)
    print("params", sorted(run.data.params.items()))
    print("tags", run.data.tags.get("framework"))
    hist = client.get_metric_history(run.info.run_id, "loss")
    print("loss history", sorted({(m.step, r(m.value)) for m in hist}))
    print("metrics", sorted((k, r(v)) for k, v in run.data.metrics.items()))
    print("artifacts", sorted(a.path for a in client.list_artifacts(run.info.run_id)),
          sorted(a.path for a in client.list_artifacts(run.info.run_id, "weights")))
    return model, x, info, info_pkl


def check_logged_model(model, x, info, tmp):
    print("model uri scheme", info.model_uri.split(":")[0], sorted(info.flavors))
    loaded = mlflow.pytorch.load_model(info.model_uri)
    print("loaded pt2", type(loaded).__name__, sorted(n for n, _ in loaded.named_parameters()),
          sorted(n for n, _ in loaded.named_buffers()), loaded.training)
    with torch.no_grad():
        print("loaded pt2 equal", torch.allclose(loaded(x), model(x), atol=1e-6), tuple(loaded(x[:5]).shape),
              [r(v) for v in loaded(x[:1]).flatten()])
    try:
        loaded.eval()
    except NotImplementedError as e:
        print("pt2 module eval", type(e).__name__, e)
    pyfunc = mlflow.pyfunc.load_model(info.model_uri)
    out = pyfunc.predict(x[:3].numpy())
    print("pyfunc predict", type(out).__name__, out.shape, out.dtype, [r(v) for v in np.asarray(out).flatten()[:4]])
    print("pyfunc signature", spec(pyfunc.metadata.signature))
    local = mlflow.artifacts.download_artifacts(info.model_uri, dst_path=os.path.join(tmp, "dl"))
    print("model files", sorted(f for f in os.listdir(local) if not f.startswith(".")),
          sorted(os.listdir(os.path.join(local, "data"))))
    with open(os.path.join(local, "MLmodel")) as f:
        mlmodel = yaml.safe_load(f)
    flavor = mlmodel["flavors"]["pytorch"]
    print("MLmodel pytorch", flavor["model_data"], flavor["pytorch_version"] == torch.__version__,
          flavor.get("serialization_format"), sorted(mlmodel["flavors"]["python_function"]))
    with open(os.path.join(local, "requirements.txt")) as f:
        reqs = [line.split("==")[0] for line in f.read().split()]
    print("requirements", reqs)
    state = torch.load(mlflow.artifacts.download_artifacts(f"runs:/{info.run_id}/weights/state.pt",
                                                           dst_path=os.path.join(tmp, "sd")))
    print("state_dict artifact", list(state), torch.equal(state["net.0.weight"], model.net[0].weight))


def check_pickled_model(model, x, info):
    loaded = mlflow.pytorch.load_model(info.model_uri)
    print("loaded pickle", type(loaded).__name__, type(loaded.net[0]).__name__, loaded.training,
          loaded.scale.item(), loaded.net[0].weight.requires_grad)
    with torch.no_grad():
        print("loaded pickle equal", torch.equal(loaded(x), model(x)))
    out = mlflow.pyfunc.load_model(info.model_uri).predict(x[:2].numpy())
    print("pickle pyfunc", out.shape, [r(v) for v in out.flatten()])
    print("pickle flavor", info.flavors["pytorch"].get("serialization_format"),
          info.flavors["pytorch"]["pytorch_version"] == torch.__version__)


def save_and_load(model, x, tmp):
    sig = infer_signature(x[:2], model(x[:2]).detach())
    print("signature tensor", spec(sig))
    path = os.path.join(tmp, "saved_pt2")
    mlflow.pytorch.save_model(model, path, input_example=x[:3].numpy(),  # the signature inferred from it
                              pip_requirements=["torch"])
    back = mlflow.pytorch.load_model(path)
    print("save_model pt2 signature", spec(mlflow.models.Model.load(path).signature))
    with torch.no_grad():
        print("save_model pt2", type(back).__name__, torch.allclose(back(x), model(x), atol=1e-6),
              r(back(x[:7]).sum()), back.scale.item(), back.get_parameter("net.0.weight").dtype)
    path = os.path.join(tmp, "saved_pickle")
    mlflow.pytorch.save_model(model, path, serialization_format="pickle", signature=sig)
    with open(os.path.join(path, "requirements.txt")) as f:
        reqs = [line.split("==")[0] for line in f.read().split()]
    print("inferred requirements have torch", "torch" in reqs, "mlflow" in reqs)
    back = mlflow.pytorch.load_model(path)
    with torch.no_grad():
        print("save_model pickle", type(back).__name__, torch.equal(back(x), model(x)), r(back(x).sum()),
              back.net[0].weight.dtype, back.net[0].weight.requires_grad)
    # state-dict saving (pickle of the module's state dict instead of the module)
    path2 = os.path.join(tmp, "saved_sd")
    mlflow.pytorch.save_state_dict(model.state_dict(), path2)
    sd = mlflow.pytorch.load_state_dict(path2)
    fresh = MLP()
    fresh.load_state_dict(sd)
    with torch.no_grad():
        print("save_state_dict", sorted(sd), torch.equal(fresh(x), model(x)))


def autolog_lightning(client):
    import lightning.pytorch as pl

    class Lit(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(4, 1)

        def training_step(self, batch, batch_idx):
            xb, yb = batch
            loss = torch.nn.functional.mse_loss(self.layer(xb), yb)
            self.log("train_loss", loss, on_epoch=True, on_step=False)
            return loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    torch.manual_seed(1)
    x = torch.randn(32, 4)
    y = x.sum(1, keepdim=True)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
    mlflow.pytorch.autolog(log_models=False, checkpoint=False)
    with mlflow.start_run(run_name="autolog") as run:
        trainer = pl.Trainer(max_epochs=3, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                             enable_model_summary=False, accelerator="cpu")
        trainer.fit(Lit(), loader)
    mlflow.pytorch.autolog(disable=True)
    data = client.get_run(run.info.run_id).data
    hist = client.get_metric_history(run.info.run_id, "train_loss")
    print("autolog params", sorted(k for k in data.params if k in ("epochs", "optimizer_name", "lr")),
          data.params.get("optimizer_name"), data.params.get("epochs"))
    print("autolog train_loss", [(m.step, r(m.value)) for m in hist])


def main():
    with tempfile.TemporaryDirectory() as tmp:
        mlflow.set_tracking_uri("file://" + os.path.join(tmp, "mlruns"))
        client = MlflowClient()
        model, x, info, info_pkl = train_and_log(tmp, client)
        check_logged_model(model, x, info, tmp)
        check_pickled_model(model, x, info_pkl)
        save_and_load(model, x, tmp)
        autolog_lightning(client)


if __name__ == "__main__":
    main()
