"""Hugging Face TRL 1.16 on a tiny config-built GPT-2 and a word-level tokenizer built here (nothing downloads),
on CPU: SFTTrainer (plain text and prompt/completion with completion-only loss), RewardTrainer (a sequence
classification head on chosen/rejected pairs), DPOTrainer (sigmoid loss against a reference model) and
GRPOTrainer (sampling with ``model.generate``, a Python reward function, group-normalized advantages, KL to a
reference model). Prints per-step losses/metrics, parameter counts and saved file names."""
import contextlib
import io
import os
import tempfile
import warnings

import torch
from datasets import Dataset
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (GPT2Config, GPT2ForSequenceClassification, GPT2LMHeadModel, PreTrainedTokenizerFast,
                          set_seed)
from transformers.utils import logging as hf_logging

from trl import (DPOConfig, DPOTrainer, GRPOConfig, GRPOTrainer, RewardConfig, RewardTrainer, RLOOConfig,
                 RLOOTrainer, SFTConfig, SFTTrainer)

warnings.filterwarnings("ignore")
hf_logging.set_verbosity_error()
os.environ.setdefault("WANDB_DISABLED", "true")

WORDS = ("the cat dog sat ran on mat log red blue big small a is good bad yes no why how what where "
         "sun moon star sky sea tree").split()
SPECIAL = ["<pad>", "<unk>", "<eos>", "<bos>"]
vocab = {w: i for i, w in enumerate(SPECIAL + WORDS)}
tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", unk_token="<unk>", eos_token="<eos>",
                              bos_token="<bos>")
tmp = tempfile.mkdtemp()
tok.save_pretrained(os.path.join(tmp, "tok"))
tok = PreTrainedTokenizerFast.from_pretrained(os.path.join(tmp, "tok"))
print("tokenizer", len(tok), tok("the cat sat on the mat")["input_ids"], sorted(os.listdir(os.path.join(tmp, "tok"))))

CFG = dict(vocab_size=len(tok), n_positions=64, n_embd=32, n_layer=2, n_head=2, bos_token_id=tok.bos_token_id,
           eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)


def lm(seed):
    set_seed(seed)
    return GPT2LMHeadModel(GPT2Config(**CFG))


def nparams(m):
    return sum(p.numel() for p in m.parameters()), sum(p.numel() for p in m.parameters() if p.requires_grad)


def common(name, max_steps=3, **kw):
    # bf16=False: TRL's configs default to bf16 autocast, where loss curves agree to bf16 tolerance only (the
    # backward of bf16 tanh rounds differently, docs/differences.md); float32 agrees to 4 digits
    return dict(output_dir=os.path.join(tmp, name), per_device_train_batch_size=4, max_steps=max_steps,
                logging_steps=1,
                learning_rate=5e-3, save_strategy="no", report_to=[], seed=0, use_cpu=True, disable_tqdm=True,
                dataloader_num_workers=0, lr_scheduler_type="constant",
                bf16=False, **kw)


def logs(tag, trainer, keys):
    for h in trainer.state.log_history:
        if "loss" in h:
            vals = " ".join(f"{k}={h[k]:.4f}" for k in keys if k in h)
            print(tag, "step", h["step"], f"loss={h['loss']:.4f}", vals)


def quiet(fn):
    with contextlib.redirect_stdout(io.StringIO()):
        return fn()


g = torch.Generator().manual_seed(0)


def sentence(n):
    idx = torch.randint(0, len(WORDS), (n,), generator=g).tolist()
    return " ".join(WORDS[i] for i in idx)


# ---- SFT: plain language modelling on a "text" column ----
texts = [sentence(int(torch.randint(4, 12, (1,), generator=g))) for _ in range(16)]
model = lm(0)
print("sft params", nparams(model))
tr = SFTTrainer(model=model, args=SFTConfig(**common("sft"), max_length=16, dataset_text_field="text"),
                train_dataset=Dataset.from_dict({"text": texts}), processing_class=tok)
batch = next(iter(tr.get_train_dataloader()))
print("sft batch", sorted(batch), tuple(batch["input_ids"].shape), int(batch["attention_mask"].sum()),
      int((batch["labels"] == -100).sum()))
res = quiet(tr.train)
logs("sft", tr, ["mean_token_accuracy", "num_tokens", "entropy"])
print("sft train_loss", round(res.training_loss, 4), res.global_step)
tr.save_model(os.path.join(tmp, "sft_out"))
print("sft files", sorted(f for f in os.listdir(os.path.join(tmp, "sft_out")) if not f.startswith("training_args")))
re = GPT2LMHeadModel.from_pretrained(os.path.join(tmp, "sft_out"))
print("sft reload", round(float(re.transformer.wte.weight.detach().sum()), 3),
      torch.equal(re.lm_head.weight, tr.model.lm_head.weight.detach()))

# ---- SFT: prompt/completion, loss only on the completion ----
pc = Dataset.from_dict({"prompt": [sentence(3) for _ in range(12)], "completion": [sentence(4) for _ in range(12)]})
tr = SFTTrainer(model=lm(1), args=SFTConfig(**common("sft_pc"), max_length=16, completion_only_loss=True),
                train_dataset=pc, processing_class=tok)
batch = next(iter(tr.get_train_dataloader()))
print("sft_pc batch", tuple(batch["input_ids"].shape), int((batch["labels"] != -100).sum()),
      int(batch["attention_mask"].sum()))
quiet(tr.train)
logs("sft_pc", tr, ["mean_token_accuracy"])

# ---- Reward modelling: Bradley-Terry loss on a 1-output sequence-classification head ----
prefs = Dataset.from_dict({"chosen": [sentence(3) + " good yes" for _ in range(12)],
                           "rejected": [sentence(3) + " bad no" for _ in range(12)]})
set_seed(2)
rm = GPT2ForSequenceClassification(GPT2Config(**CFG, num_labels=1))
print("reward params", nparams(rm))
tr = RewardTrainer(model=rm, args=RewardConfig(**common("rm"), max_length=16), train_dataset=prefs,
                   processing_class=tok)
batch = next(iter(tr.get_train_dataloader()))
print("reward batch", sorted(batch), tuple(batch["input_ids"].shape))
quiet(tr.train)
logs("reward", tr, ["accuracy", "margin", "min_reward", "max_reward"])
tr.save_model(os.path.join(tmp, "rm_out"))
print("reward files", sorted(f for f in os.listdir(os.path.join(tmp, "rm_out")) if not f.startswith("training")))
with torch.no_grad():
    enc = tok(["the cat good yes", "the cat bad no"], return_tensors="pt")
    scores = tr.model(**enc).logits[:, 0]
print("reward scores", [round(float(s), 3) for s in scores])

# ---- DPO: sigmoid preference loss against a frozen reference model ----
dpo_ds = Dataset.from_dict({"prompt": [sentence(3) for _ in range(12)],
                            "chosen": [" good yes " + sentence(2) for _ in range(12)],
                            "rejected": [" bad no " + sentence(2) for _ in range(12)]})
policy, ref = lm(3), lm(3)
print("dpo params", nparams(policy), nparams(ref))
tr = DPOTrainer(model=policy, ref_model=ref, args=DPOConfig(**common("dpo"), max_length=24, beta=0.1,
                                                            per_device_eval_batch_size=4),
                train_dataset=dpo_ds, eval_dataset=dpo_ds.select(range(4)), processing_class=tok)
batch = next(iter(tr.get_train_dataloader()))
print("dpo batch", sorted(batch), tuple(batch["input_ids"].shape))
quiet(tr.train)
logs("dpo", tr, ["rewards/chosen", "rewards/rejected", "rewards/accuracies", "rewards/margins",
                 "logps/chosen", "logps/rejected"])
ev = quiet(tr.evaluate)
print("dpo eval", " ".join(f"{k}={ev[k]:.4f}" for k in ("eval_loss", "eval_rewards/margins", "eval_logps/chosen")))
print("dpo ref unchanged", torch.equal(ref.lm_head.weight, lm(3).lm_head.weight))

# ---- GRPO: sample a group of completions per prompt with model.generate, score them with a Python function and
# with the reward model trained above, group-normalized advantages, clipped policy loss with a KL term ----
def reward_good(completions, **kw):
    return [float(c.split().count("good")) - 0.5 * float(c.split().count("bad")) for c in completions]


grpo_ds = Dataset.from_dict({"prompt": [sentence(3) for _ in range(8)]})
gcfg = GRPOConfig(**common("grpo", max_steps=4), num_generations=4, max_completion_length=6, beta=0.04,
                  generation_batch_size=8, temperature=1.0, reward_weights=[1.0, 0.5])
lm(4).save_pretrained(os.path.join(tmp, "grpo_init"))  # with beta > 0 the reference model loads from this path
tr = GRPOTrainer(model=os.path.join(tmp, "grpo_init"), reward_funcs=[reward_good, rm], args=gcfg,
                 train_dataset=grpo_ds, processing_class=tok, reward_processing_classes=[None, tok])
quiet(tr.train)
for h in tr.state.log_history:
    if "loss" in h:
        print("grpo step", h["step"], " ".join(f"{k}={h[k]:.4f}" for k in (
            "loss", "reward", "reward_std", "rewards/reward_good/mean", "frac_reward_zero_std",
            "completions/mean_length", "kl", "entropy", "clip_ratio/region_mean") if k in h))
set_seed(5)
sample = tr.model.generate(**tok(["the cat sat"], return_tensors="pt"), max_new_tokens=5, do_sample=True,
                           pad_token_id=tok.pad_token_id)
print("grpo sample", tok.decode(sample[0]))

# ---- RLOO: leave-one-out baseline over the group, no reference model (beta=0) ----
rcfg = RLOOConfig(**common("rloo", max_steps=2), num_generations=4, max_completion_length=5, beta=0.0,
                  generation_batch_size=8)
tr = RLOOTrainer(model=lm(6), reward_funcs=reward_good, args=rcfg, train_dataset=grpo_ds, processing_class=tok)
quiet(tr.train)
for h in tr.state.log_history:
    if "loss" in h:
        print("rloo step", h["step"], " ".join(f"{k}={h[k]:.4f}" for k in (
            "loss", "reward", "reward_std", "completions/mean_length", "entropy") if k in h))
