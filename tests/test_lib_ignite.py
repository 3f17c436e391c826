"""pytorch-ignite (supervised trainer/evaluator engines, metrics incl. Precision/Recall/Fbeta/ConfusionMatrix and a
RunningAverage, a cosine LR schedule, early stopping, ModelCheckpoint of the best model and its reload, ignite's
wrapper of a torch StepLR) under the drop-in runner, compared line by line with the same program under real
torch; and the ``torch.distributed.optim`` name ignite imports when it loads.
"""
import textwrap

from conftest import lib_program_vs_torch, run_program


def test_ignite_engines_metrics_and_handlers_match_torch():
    _, ours = lib_program_vs_torch("lib_ignite_engine.py", "torch", "ignite", timeout=600, rtol=1e-4)
    assert len(ours) == 20
    assert ours[-4] == "finished epochs 4 iterations 24" and ours[-1] == "steplr [0.01, 0.01, 0.005, 0.005, 0.0025]"
    assert ours[-3] == "checkpoint keys ['0.bias', '0.weight', '3.bias', '3.weight']"


def test_zero_redundancy_optimizer_imports_and_is_a_placeholder(tmp_path):
    # ignite's handlers/checkpoint.py does ``from torch.distributed.optim import ZeroRedundancyOptimizer`` at import
    # time and only tests ``isinstance(optimizer, ZeroRedundancyOptimizer)``
    probe = tmp_path / "probe.py"
    probe.write_text(textwrap.dedent("""
        import torch
        from torch.distributed.optim import ZeroRedundancyOptimizer
        opt = torch.optim.SGD(torch.nn.Linear(1, 1).parameters(), lr=0.1)
        print(isinstance(opt, ZeroRedundancyOptimizer))
        try:
            ZeroRedundancyOptimizer(torch.nn.Linear(1, 1).parameters(), torch.optim.SGD, lr=0.1)
        except NotImplementedError as e:
            print("NotImplementedError", "ZeroRedundancyOptimizer" in str(e))
    """))
    assert run_program([str(probe)], runner=True, timeout=300) == ["False", "NotImplementedError True"]


def test_ignite_ema_checkpoint_resume_and_lr_finder_match_torch():
    _, ours = lib_program_vs_torch("lib_ignite_handlers.py", "torch", "ignite", timeout=600, rtol=1e-4)
    assert len(ours) == 10
    assert ours[5] == "resumed to epoch 4 iteration 32" and ours[-1].startswith("piecewise [0.0, 0.1, 0.2, 0.3")
