"""Hugging Face Trainer on a tiny GPT-2 (config-built, no download): a few steps, eval, predict, save and
reload. Prints losses, learning rates and the reloaded weights."""
import contextlib
import io
import os
import tempfile

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments, set_seed


class DS(torch.utils.data.Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(1)
        self.x = torch.randint(0, 50, (n, 16), generator=g)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"input_ids": self.x[i], "labels": self.x[i]}


set_seed(0)
model = GPT2LMHeadModel(GPT2Config(vocab_size=50, n_positions=32, n_embd=32, n_layer=2, n_head=2))
out = tempfile.mkdtemp()
args = TrainingArguments(output_dir=out, per_device_train_batch_size=4, per_device_eval_batch_size=4,
                         num_train_epochs=1, learning_rate=1e-3, logging_steps=2, save_strategy="no", report_to=[],
                         seed=0, use_cpu=True, dataloader_num_workers=0, disable_tqdm=True,
                         lr_scheduler_type="linear", warmup_steps=2)
tr = Trainer(model=model, args=args, train_dataset=DS(32), eval_dataset=DS(8))
with contextlib.redirect_stdout(io.StringIO()):  # (the Trainer prints its own log dicts, with timings)
    res = tr.train()
    ev = tr.evaluate()
    pred = tr.predict(DS(4))
print("train_loss", round(res.training_loss, 4), "steps", res.global_step)
for h in tr.state.log_history:
    if "loss" in h:
        print("log", h["step"], round(h["loss"], 4), f"{h['learning_rate']:.3e}")
print("eval_loss", round(ev["eval_loss"], 4))
print("pred", tuple(pred.predictions.shape), round(float(pred.metrics["test_loss"]), 4))
tr.save_model(os.path.join(out, "m"))
m2 = GPT2LMHeadModel.from_pretrained(os.path.join(out, "m"))
print("reload", sorted(os.listdir(os.path.join(out, "m"))), round(float(m2.transformer.wte.weight.detach().sum()), 3))
