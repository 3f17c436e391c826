"""TransformerLens (the HookedTransformer API) on tiny models built from a HookedTransformerConfig, no download:
attention-only and MLP models (gelu / solu, LN / LNPre / RMS normalisation), run_with_cache and the cached
attention pattern, a head-ablation hook with run_with_hooks, seeded generation with and without the KV cache,
return_type='loss', a few AdamW steps, FactoredMatrix algebra, utils.get_act_name, a state_dict round trip,
and the ActivationCache's accumulated_resid / decompose_resid / logit_attrs / stack_head_results.
(from_pretrained downloads a checkpoint from the hub, so it is not exercised here.)"""
import io
import warnings

import torch

warnings.filterwarnings("ignore")

from transformer_lens import FactoredMatrix, HookedTransformer, HookedTransformerConfig  # noqa: E402
from transformer_lens import utils  # noqa: E402


def r(x, n=4):
    return round(float(x), n)


def config(**kw):
    base = dict(n_layers=2, d_model=32, d_head=8, n_heads=4, d_vocab=50, n_ctx=32, act_fn="gelu",
                normalization_type="LN", seed=0, device="cpu")
    base.update(kw)
    return HookedTransformerConfig(**base)


TOKENS = torch.randint(0, 50, (2, 8), generator=torch.Generator().manual_seed(1))

variants = [
    ("attn_only_LN", dict(attn_only=True)),
    ("gelu_LN", dict(d_mlp=64)),
    ("solu_LNPre", dict(d_mlp=64, act_fn="solu_ln", normalization_type="LNPre")),
    ("gelu_RMS", dict(d_mlp=64, normalization_type="RMS", positional_embedding_type="rotary",
                      rotary_dim=8)),
    ("gelu_new_none", dict(d_mlp=64, act_fn="gelu_new", normalization_type=None)),
]
models = {}
for name, kw in variants:
    model = HookedTransformer(config(**kw))
    models[name] = model
    logits = model(TOKENS)
    n_params = sum(p.numel() for p in model.parameters())
    print(name, "logits", tuple(logits.shape), logits.dtype, r(logits.sum()), r(logits.abs().mean()), n_params)

model = models["gelu_LN"]

# run_with_cache and the cached attention pattern
logits, cache = model.run_with_cache(TOKENS)
pattern = cache["blocks.0.attn.hook_pattern"]
print("pattern", tuple(pattern.shape), r(pattern.sum()), r(pattern[0, 1, 3].max()))
print("pattern upper triangle zero", bool((pattern.triu(1) == 0).all()))
print("cache keys", len(cache), sorted(cache.keys())[:4])
print("cache resid_post", tuple(cache["resid_post", 1].shape), r(cache["resid_post", 1].norm()))
print("cache v z", r(cache["v", 0].mean(), 5), r(cache["z", 1, "attn"].std()))
print("act names", utils.get_act_name("pattern", 0), utils.get_act_name("resid_pre", 1),
      utils.get_act_name("q", 1, "a"), utils.get_act_name("post", 0))

# ablation hook zeroing head 2 of layer 0
def ablate(z, hook):
    z[:, :, 2, :] = 0.0
    return z


clean_loss = model(TOKENS, return_type="loss")
abl_loss = model.run_with_hooks(TOKENS, return_type="loss", fwd_hooks=[(utils.get_act_name("z", 0), ablate)])
print("loss clean ablated", r(clean_loss), r(abl_loss))
per_tok = model(TOKENS, return_type="loss", loss_per_token=True)
print("loss per token", tuple(per_tok.shape), r(per_tok.mean()))

seen = []
model.add_hook("blocks.1.hook_resid_pre", lambda x, hook: seen.append((hook.name, tuple(x.shape))))
model(TOKENS)
model.reset_hooks()
model(TOKENS)
print("add_hook seen", seen)

# a filter-function hook: record every attention pattern's entropy
ent = {}


def entropy(p, hook):
    ent[hook.name] = r(-(p * p.clamp_min(1e-9).log()).sum(-1).mean())


model.run_with_hooks(TOKENS, fwd_hooks=[(lambda n: n.endswith("hook_pattern"), entropy)])
print("entropies", ent)

# backward hook
grads = {}


def grad_norm(g, hook):
    grads[hook.name] = r(g.norm(), 5)


model.run_with_hooks(TOKENS, return_type="loss", bwd_hooks=[("blocks.0.hook_resid_post", grad_norm)],
                     reset_hooks_end=False).backward()
model.reset_hooks()
print("bwd hook grad", grads)
model.zero_grad(set_to_none=True)

# generation, greedy and sampled, with and without the KV cache
prompt = TOKENS[:1, :4]
greedy = model.generate(prompt, max_new_tokens=6, do_sample=False, stop_at_eos=False, verbose=False)
greedy_nc = model.generate(prompt, max_new_tokens=6, do_sample=False, stop_at_eos=False, verbose=False,
                           use_past_kv_cache=False)
print("generate greedy", greedy.tolist(), greedy.tolist() == greedy_nc.tolist())
torch.manual_seed(3)
sampled = model.generate(prompt, max_new_tokens=6, do_sample=True, top_k=10, temperature=0.8, stop_at_eos=False,
                         verbose=False)
print("generate sampled", sampled.shape[1], sampled[0, :4].tolist() == prompt[0].tolist())
torch.manual_seed(3)
sampled_p = models["attn_only_LN"].generate(prompt, max_new_tokens=5, top_p=0.9, stop_at_eos=False, verbose=False)
print("generate top_p", sampled_p.shape[1])

# training a few AdamW steps on a copy task
torch.manual_seed(0)
train_model = HookedTransformer(config(d_mlp=64, act_fn="gelu", normalization_type="LN"))
opt = torch.optim.AdamW(train_model.parameters(), lr=3e-3, weight_decay=0.01)
g = torch.Generator().manual_seed(5)
losses = []
for step in range(6):
    half = torch.randint(1, 50, (8, 5), generator=g)
    batch = torch.cat([half, half], dim=1)
    loss = train_model(batch, return_type="loss")
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(train_model.parameters(), 1.0)
    opt.step()
    losses.append(r(loss))
print("train losses", losses)
print("train W_Q grad", r(train_model.blocks[0].attn.W_Q.grad.norm(), 5))

# state_dict round trip
buf = io.BytesIO()
torch.save(train_model.state_dict(), buf)
buf.seek(0)
fresh = HookedTransformer(config(d_mlp=64, act_fn="gelu", normalization_type="LN", seed=7))
missing = fresh.load_state_dict(torch.load(buf, weights_only=True))
print("load_state_dict", missing, r(fresh(batch, return_type="loss")), r(train_model(batch, return_type="loss")))
print("state_dict keys", len(train_model.state_dict()), list(train_model.state_dict())[:3])

# FactoredMatrix algebra
ov = model.OV
qk = model.QK
print("OV", type(ov).__name__, tuple(ov.shape), tuple(ov.A.shape), tuple(ov.B.shape))
print("OV norm", [r(v) for v in ov.norm()[0].tolist()])
print("QK eigen", tuple(qk[1, 0].eigenvalues.shape), r(qk[1, 0].eigenvalues.abs().max()))
A = torch.randn(6, 3, generator=torch.Generator().manual_seed(2))
B = torch.randn(3, 6, generator=torch.Generator().manual_seed(3))
fm = FactoredMatrix(A, B)
print("fm AB", r(fm.AB.sum()), r(fm.BA.trace()), tuple(fm.T.shape), fm.rdim, fm.ldim, fm.mdim)
U, S, Vh = fm.svd()
print("fm svd", tuple(U.shape), [r(s) for s in S.tolist()], tuple(Vh.shape))
print("fm ops", r((fm @ torch.ones(6, 2)).AB.sum()), r((torch.ones(2, 6) @ fm).AB.sum()), r(fm.norm()),
      r(fm.get_corner(2).sum()))
collapsed = fm.collapse_l()
print("fm collapse", tuple(collapsed.shape), r(fm.make_even().A.norm()))
print("fm index", tuple(fm[1:4].shape), r((fm * 2.0).AB.sum()), r(fm.pair[0].sum()))

# ActivationCache decompositions
accum, labels = cache.accumulated_resid(layer=-1, incl_mid=True, apply_ln=True, return_labels=True)
print("accumulated_resid", tuple(accum.shape), labels, r(accum.norm()))
decomp, dlabels = cache.decompose_resid(layer=-1, return_labels=True, apply_ln=False)
print("decompose_resid", tuple(decomp.shape), dlabels, r(decomp.sum(0).norm()))
print("decompose sums to resid", bool(torch.allclose(decomp.sum(0), cache["resid_post", 1], atol=1e-4)))
heads, hlabels = cache.stack_head_results(layer=-1, return_labels=True)
print("stack_head_results", tuple(heads.shape), hlabels[:3], r(heads.norm()))
answer = torch.tensor([3, 7])
last = decomp[:, :, -1]
attrs = cache.logit_attrs(last, tokens=answer, incorrect_tokens=torch.tensor([5, 5]), pos_slice=-1)
print("logit_attrs", tuple(attrs.shape), [r(a, 3) for a in attrs[:, 0].tolist()])
direct = cache.apply_ln_to_stack(last, layer=-1, pos_slice=-1)
print("apply_ln_to_stack", tuple(direct.shape), r(direct.norm()))
per_neuron = cache.stack_neuron_results(layer=1, return_labels=False)
print("stack_neuron_results", tuple(per_neuron.shape), r(per_neuron.sum()))
print("compute_head_results", r(cache.get_full_resid_decomposition(expand_neurons=False).norm()))

# attention result per head, split qkv input, an attention mask with left padding
model.set_use_attn_result(True)
model.set_use_split_qkv_input(True)
logits2, cache2 = model.run_with_cache(TOKENS, names_filter=lambda n: n.endswith(("hook_result", "hook_q_input")))
print("attn result", sorted(cache2.keys()), tuple(cache2["blocks.1.attn.hook_result"].shape),
      r((logits2 - logits).abs().max(), 3))
model.set_use_attn_result(False)
model.set_use_split_qkv_input(False)
mask = torch.ones(2, 8, dtype=torch.long)
mask[1, :3] = 0
masked = model(TOKENS, attention_mask=mask)
print("attention mask", r(masked[0].sum()), r(masked[1, 3:].sum()), r((masked[0] - logits[0]).abs().max(), 4))

# grouped-query and local attention, float64 configs
gqa = HookedTransformer(config(d_mlp=64, n_key_value_heads=2, attn_types=["global", "local"], window_size=3,
                               dtype=torch.float64))
gqa_loss, gqa_cache = gqa.run_with_cache(TOKENS, return_type="loss")
print("gqa local f64", gqa_loss.dtype, r(gqa_loss), tuple(gqa_cache["k", 0].shape),
      r(gqa_cache["pattern", 1][0, 0, 7, :4].sum()))

# weight processing: fold layer norm, centre writing weights and unembed keep the log-probs
before = models["gelu_LN"](TOKENS).log_softmax(-1)
processed = HookedTransformer(config(d_mlp=64, normalization_type="LN"))
processed.load_and_process_state_dict(models["gelu_LN"].state_dict(), fold_ln=True, center_writing_weights=True,
                                      center_unembed=True, refactor_factored_attn_matrices=True)
after = processed(TOKENS).log_softmax(-1)
print("processed", processed.cfg.normalization_type, r((after - before).abs().max(), 3),
      r(processed.W_out.mean(-1).abs().max(), 4), r(processed.W_U.mean(-1).abs().max(), 4))

# activation patching of the residual stream, a clean run against a corrupted one
corrupt = TOKENS.clone()
corrupt[:, 2] = (corrupt[:, 2] + 1) % 50
_, clean_cache = model.run_with_cache(TOKENS)


def metric(lg):
    return lg[:, -1, 3].mean() - lg[:, -1, 5].mean()


from transformer_lens import patching  # noqa: E402

patched = patching.get_act_patch_resid_pre(model, corrupt, clean_cache, metric)
print("patch resid_pre", tuple(patched.shape), [r(v, 3) for v in patched[:, 2].tolist()])
heads_out = patching.get_act_patch_attn_head_out_all_pos(model, corrupt, clean_cache, metric)
print("patch head_out", tuple(heads_out.shape), r(heads_out.sum(), 3))

# the library's own training loop (Adam, warmup, grad clipping)
from transformer_lens.train import HookedTransformerTrainConfig, train  # noqa: E402

torch.manual_seed(0)
tl_model = HookedTransformer(config(attn_only=True))
data = [{"tokens": torch.randint(0, 50, (10,), generator=g)} for _ in range(16)]
cfg = HookedTransformerTrainConfig(num_epochs=1, batch_size=4, lr=1e-2, seed=4, warmup_steps=2, max_grad_norm=1.0,
                                   weight_decay=0.01, device="cpu", print_every=None)
trained = train(tl_model, cfg, data)
print("tl train", r(trained(torch.stack([d["tokens"] for d in data[:4]]), return_type="loss")))
