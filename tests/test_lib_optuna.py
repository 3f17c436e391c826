"""optuna 5.1.0 under the drop-in runner, compared line by line with real torch: a seeded TPE study with
MedianPruner tuning an MLP's lr/hidden size/optimizer (trial.report, should_prune, TrialPruned), enqueue_trial,
FixedTrial reproducing the best value, GridSampler, and a study in SQLite storage re-loaded by name."""
from conftest import lib_program_vs_torch


def test_optuna_tpe_median_pruner_like_torch():
    _, ours = lib_program_vs_torch("lib_optuna.py", "optuna", timeout=600, rtol=1e-4)
    assert len(ours) == 17, ours
    assert ours[0] == ("tpe states ['COMPLETE', 'COMPLETE', 'COMPLETE', 'PRUNED', 'PRUNED', 'PRUNED', 'PRUNED', "
                       "'PRUNED', 'COMPLETE', 'PRUNED']"), ours[0]
    assert ours[1] == ("tpe trial 0 {'lr': 0.05, 'hidden': 16, 'optimizer': 'Adam'} 8 0.5204 0.5204 "
                       "{'accuracy': 0.7812, 'n_params': 146}"), ours[1]
    assert ours[11] == "best 0 {'lr': 0.05, 'hidden': 16, 'optimizer': 'Adam'} 0.5204 0.7812", ours[11]
    assert ours[12] == "pruned 6 [3, 4, 5, 6, 7, 9]", ours[12]
    assert ours[13] == "fixed trial 0.5204 0.7812", ours[13]
    assert ours[14] == "grid [(0.01, 4, 0.707), (0.01, 8, 0.6808), (0.1, 4, 0.5416), (0.1, 8, 0.5812)]", ours[14]
    assert ours[15] == "stored 3 0.6394 SGD True", ours[15]
