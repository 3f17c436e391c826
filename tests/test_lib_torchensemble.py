"""torchensemble 0.2.0 under the drop-in runner, compared line by line with real torch: Fusion, Voting (soft and
hard), Bagging, GradientBoosting, SnapshotEnsemble, SoftGradientBoosting, AdversarialTraining (FGSM samples from
input gradients), FastGeometric and NeuralForest classifiers, and Fusion/Voting/Bagging/GradientBoosting/Snapshot
regressors, each fitted a few epochs on seeded synthetic data with its set_optimizer/set_scheduler settings,
then evaluate/predict; the library's own per-batch log lines; a save/load round trip through
torchensemble.utils.io (under torch.serialization.safe_globals, since it pickles the criterion module).

Found: nothing to fix. The library prints losses with 5 decimals; the first batch's cross entropy prints 0.72066
under torch and 0.72067 here (a float32 last-bit difference in the loss, within the comparison's last-digit
tolerance); every other value is exact."""
from conftest import lib_program_vs_torch


def test_torchensemble_like_torch():
    t, ours = lib_program_vs_torch("lib_torchensemble.py", "torchensemble", timeout=600)
    assert len(ours) == 62, ours
    results = [line for line in ours if not line.startswith(("Estimator", "None"))]
    assert len(results) == 16, results
    assert results[2].startswith("voting hard 2 ") and results[-1] == "loaded 2 True", results
    assert [line for line in t if line.startswith("fusion ")] == [line for line in ours if line.startswith("fusion ")]
