"""GluonTS 0.17.0's PyTorch models under the drop-in runner, compared line by line with real torch:
SimpleFeedForwardEstimator and DeepAREstimator trained through Lightning on seeded series, their probabilistic
forecasts (distribution means and quantiles, seeded sample paths), StudentT/Normal distribution outputs with a
backward pass, and the mean and std scalers with an observation mask."""
from conftest import lib_program_vs_torch


def test_gluonts_torch_models_like_torch():
    _, ours = lib_program_vs_torch("lib_gluonts_torch.py", "gluonts", "lightning", timeout=600, rtol=1e-4)
    assert len(ours) == 9, ours
    assert ours[0] == "sff params 3715", ours[0]
    assert ours[1].startswith("sff forecast 4 DistributionForecast (12,)"), ours[1]
    assert ours[3] == "deepar params 668", ours[3]
    assert ours[4].startswith("deepar forecast (20, 6)"), ours[4]
    assert ours[7].startswith("mean scaler [2.0452, 2.6482] [0.0, 0.0]"), ours[7]
