"""Fine-tuning from ``from_pretrained`` with the configs' default dropout (0.1), as users fine-tune: the loaded
model must leave the random stream where torch leaves it (HF builds it on the meta device first), so every
dropout mask, and so every loss, equals torch's.  Also DeBERTa-v2's ``pad_id in input_ids[:, [-1, 0]]``.
Prints one line per step; run under torch and under ``python -m torchlike run`` and compare."""
import sys
import tempfile

import numpy as np
import torch
import transformers as T

SMALL = dict(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37,
             max_position_embeddings=64)
CONFIGS = {
    "bert": lambda: (T.BertConfig(**SMALL), T.AutoModelForMaskedLM),
    "deberta_v2": lambda: (T.DebertaV2Config(**SMALL), T.AutoModelForMaskedLM),
    "opt": lambda: (T.OPTConfig(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, ffn_dim=37,
                                max_position_embeddings=64, word_embed_proj_dim=32), T.AutoModelForCausalLM),
    "bart": lambda: (T.BartConfig(vocab_size=99, d_model=32, encoder_layers=1, decoder_layers=1,
                                  encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=37,
                                  decoder_ffn_dim=37, max_position_embeddings=64), T.AutoModelForSeq2SeqLM),
}

with tempfile.TemporaryDirectory() as root:
    for name in sys.argv[1:] or list(CONFIGS):
        cfg, auto = CONFIGS[name]()
        path = f"{root}/{name}"
        weights = np.random.default_rng(0)
        model = auto.from_config(cfg)
        with torch.no_grad():  # the same initial weights on both sides, from numpy
            for p in model.parameters():
                p.copy_(torch.from_numpy(weights.normal(0, 0.05, tuple(p.shape)).astype(np.float32)))
        model.save_pretrained(path)
        torch.manual_seed(0)
        model = auto.from_pretrained(path)
        print(name, "stream after from_pretrained", round(torch.rand(1).item(), 6))
        model.train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        ids = torch.from_numpy(np.random.default_rng(1).integers(3, 99, (2, 12)))
        for step in range(2):
            loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
            print(name, "step", step, "loss", round(loss.item(), 5))
