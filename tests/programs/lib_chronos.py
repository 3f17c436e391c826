"""chronos-forecasting: a tiny Chronos-Bolt model (a T5 encoder-decoder with patch embeddings and quantile heads)
built from a config (no download), trained a few steps on seeded sine series with its quantile loss and AdamW,
then forecast through ChronosBoltPipeline (quantiles and mean, beyond the model's horizon), and the original
Chronos tokenizer (MeanScaleUniformBins) round-tripping series through token ids."""
import torch
from transformers import T5Config

from chronos import ChronosBoltPipeline, ChronosConfig
from chronos.chronos_bolt import ChronosBoltModelForForecasting


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    return round(float(x), n)


torch.manual_seed(0)
cfg = T5Config(d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=1, num_heads=4, vocab_size=2,
               dropout_rate=0.0, feed_forward_proj="relu", is_encoder_decoder=True, pad_token_id=0,
               decoder_start_token_id=0)
cfg.chronos_config = dict(context_length=32, prediction_length=8, input_patch_size=4, input_patch_stride=4,
                          quantiles=[0.1, 0.5, 0.9], use_reg_token=True)
cfg.chronos_pipeline_class = "ChronosBoltPipeline"
model = ChronosBoltModelForForecasting(cfg)
print("params", sum(p.numel() for p in model.parameters()))

t = torch.arange(40, dtype=torch.float32)
phase = torch.rand(16, 1) * 6.28
series = torch.sin(t / 3 + phase) * (1 + torch.rand(16, 1)) + 0.05 * torch.randn(16, 40)
context, target = series[:, :32], series[:, 32:]
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
for step in range(6):
    model.train()
    opt.zero_grad()
    out = model(context=context, target=target)
    out.loss.backward()
    opt.step()
    print("step", step, r(out.loss), tuple(out.quantile_preds.shape))

model.eval()
pipe = ChronosBoltPipeline(model)
with torch.no_grad():
    q = pipe.predict(context[:2])
    quantiles, mean = pipe.predict_quantiles(context[:2], prediction_length=12, quantile_levels=[0.1, 0.5, 0.9])
print("predict", tuple(q.shape), r(q[0, 1, :4]))
print("quantiles", tuple(quantiles.shape), tuple(mean.shape), r(mean[0, :4]), r(quantiles[1, -1]))
ragged = [series[0, 5:32], series[1]]
with torch.no_grad():
    print("ragged", r(pipe.predict(ragged)[:, 1, 0]))

ccfg = ChronosConfig(tokenizer_class="MeanScaleUniformBins", tokenizer_kwargs=dict(low_limit=-5.0, high_limit=5.0),
                     context_length=32, prediction_length=8, n_tokens=64, n_special_tokens=2, pad_token_id=0,
                     eos_token_id=1, use_eos_token=True, model_type="seq2seq", num_samples=4, temperature=1.0,
                     top_k=50, top_p=1.0)
tok = ccfg.create_tokenizer()
ids, mask, scale = tok.context_input_transform(context[:3])
print("tokens", tuple(ids.shape), ids[0, :8].tolist(), r(scale), bool(mask.all()))
back = tok.output_transform(ids[:, None, :-1], scale)
print("detokenized", tuple(back.shape), r((back[:, 0] - context[:3]).abs().max()))
