"""pytorch-forecasting 1.8.0 on lightning 2.6.6 (TimeSeriesDataSet from a synthetic pandas frame with a
GroupNormalizer; TemporalFusionTransformer with QuantileLoss, DeepAR, N-BEATS trained one epoch each with
lightning's Trainer on the CPU; quantile/raw/sample predictions, interpretation, metrics, checkpoint reload) under
the drop-in runner, compared line by line with the same program under real torch.

Every printed line equals torch's (after the pad_packed_sequence stride fix); the rtol leaves room for Adam at
lr 0.03, which turns last-bit gradient differences of near-zero components into whole steps.
"""
from conftest import lib_program_vs_torch


def test_pytorch_forecasting_tft_deepar_nbeats_like_torch():
    _, ours = lib_program_vs_torch("lib_pytorch_forecasting.py", "torch", "pytorch_forecasting", "lightning",
                                   timeout=1200, rtol=2e-3)
    assert len(ours) == 15, ours
    line = {" ".join(text.split(" ")[:2]): text for text in ours}
    assert ours[0] == ("dataset 116 4 12 6 ['encoder_length', 'price', 'relative_time_idx', 'time_idx', 'value', "
                       "'value_center', 'value_scale'] ['series', 'kind', 'month']"), ours[0]
    assert line["batch ['decoder_cat',"].split("] ")[1].startswith("(4, 12, 7) (4, 6, 3) (4, 6) None ")
    assert line["tft params"] == "tft params 6291 QuantileLoss [0.02, 0.1, 0.25, 0.5, 0.75, 0.9, 0.98]"
    assert line["tft fit"].startswith("tft fit 1 6 "), line["tft fit"]
    assert line["tft quantiles"].startswith("tft quantiles (4, 6, 7) "), line["tft quantiles"]
    assert line["tft raw"].endswith("'prediction', 'static_variables'] (4, 6, 7) (4, 6, 2, 12)"), line["tft raw"]
    assert line["tft interpret"].endswith(" (5,)"), line["tft interpret"]
    assert line["tft reload"] == "tft reload TemporalFusionTransformer True"
    assert line["deepar params"] == "deepar params 542 LSTM"
    assert line["deepar samples"].startswith("deepar samples (4, 6, 20) ")
    assert line["nbeats params"] == "nbeats params 4944 6"
    assert line["nbeats raw"] == ("nbeats raw ['backcast', 'generic', 'prediction', 'seasonality', 'trend'] "
                                  "(4, 6, 1) (4, 12, 1)")
