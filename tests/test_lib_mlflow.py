"""mlflow (mlflow-skinny 3.18.0) under the drop-in runner, compared line by line with real torch: a file-store
run's params and metrics, ``mlflow.pytorch.log_model``/``save_model`` in both formats (3.18's default ``.pt2``
through ``torch.export`` and ``ExportedProgram.module()``; the cloudpickled whole module), pyfunc ``predict`` on
numpy, signatures, pip-requirement inference (a subprocess that loads the model), ``save_state_dict`` and
``mlflow.pytorch.autolog`` around a Lightning fit."""
from conftest import lib_program_vs_torch


def test_mlflow_log_load_models_and_autolog_like_torch():
    _, ours = lib_program_vs_torch("lib_mlflow.py", "mlflow", "lightning", timeout=600, rtol=1e-4)
    assert len(ours) == 28, ours

    def line(prefix):
        return next(text for text in ours if text.startswith(prefix + " "))

    assert line("loss history") == ("loss history [(0, 1.1964), (1, 1.1217), (2, 1.0564), (3, 0.9825), "
                                    "(4, 0.8928), (5, 0.7877)]")
    assert line("loaded pt2 GraphModule") == ("loaded pt2 GraphModule ['net.0.bias', 'net.0.weight', 'net.2.bias', "
                                              "'net.2.weight'] ['scale'] True")
    assert line("loaded pt2 equal") == "loaded pt2 equal True (5, 2) [0.0995, -0.0314]"
    assert line("pt2 module eval") == "pt2 module eval NotImplementedError Calling eval() is not supported yet."
    assert line("pyfunc predict") == "pyfunc predict ndarray (3, 2) float32 [0.0995, -0.0314, -0.4237, 0.1385]"
    assert line("model files").endswith("['model.pt2']"), line("model files")
    assert line("loaded pickle") == "loaded pickle MLP Linear False 0.5 True"
    assert line("save_model pt2 GraphModule") == "save_model pt2 GraphModule True 1.7532 0.5 torch.float32"
    assert line("inferred requirements") == "inferred requirements have torch True True"
    assert line("save_model pickle") == "save_model pickle MLP True 2.7639 torch.float32 True"
    assert line("autolog train_loss") == "autolog train_loss [(0, 2.6588), (1, 0.1219), (2, 0.0112)]"
