"""chronos-forecasting 2.3.2 under the drop-in runner, compared line by line with real torch: a tiny Chronos-Bolt
model (transformers' T5 with patch embeddings, instance scaling and quantile heads) built from a config, trained
with its quantile loss and AdamW, forecasting through ChronosBoltPipeline (quantiles, mean, a horizon past the
model's, ragged contexts), and the original Chronos MeanScaleUniformBins tokenizer round trip."""
from conftest import lib_program_vs_torch


def test_chronos_like_torch():
    _, ours = lib_program_vs_torch("lib_chronos.py", "chronos", "transformers", timeout=600, rtol=1e-4)
    assert len(ours) == 12, ours
    assert ours[0] == "params 36688", ours[0]
    assert ours[1] == "step 0 171.8845 (16, 3, 8)", ours[1]
    assert ours[10] == "tokens (3, 33) [33, 29, 26, 24, 24, 23, 24, 26] [0.8254, 0.6836, 0.9995] True", ours[10]
