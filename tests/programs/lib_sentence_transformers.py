"""sentence-transformers without downloads: a tiny BERT built from a config and a word-piece vocabulary, saved
to a temporary directory, loaded through models.Transformer, with mean Pooling and Normalize modules; encode
(tensors, numpy, similarity), a few training steps with MultipleNegativesRankingLoss and CosineSimilarityLoss
in a plain optimizer loop (the trainer/fit path needs the `datasets` package), save and reload.  Prints one line
per measurement; run the same script with real torch and under ``python -m torchlike run`` and compare.
"""
import os
import tempfile

import numpy as np
import torch
import transformers
from sentence_transformers import SentenceTransformer, util
from sentence_transformers.sentence_transformer import losses, modules as models

WORDS = ("the a cat dog sat on mat ran in park bird flew over tree sun is hot cold day night moon bright "
         "fish swim sea boat sails wind blows").split()
SENTS = ["the cat sat on the mat", "a dog ran in the park", "the bird flew over the tree", "the sun is hot",
         "the moon is bright", "fish swim in the sea", "a boat sails in the wind", "the day is cold"]
PARA = ["a cat sat on a mat", "the dog ran in a park", "a bird flew over a tree", "a sun is hot",
        "a moon is bright", "a fish swim in a sea", "the boat sails in a wind", "a day is cold"]


def build(d):
    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS)}
    tok = transformers.BertTokenizerFast(vocab=vocab)
    torch.manual_seed(0)
    cfg = transformers.BertConfig(vocab_size=len(WORDS) + 5, hidden_size=32, num_hidden_layers=2,
                                  num_attention_heads=4, intermediate_size=64, max_position_embeddings=32,
                                  hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    transformers.BertModel(cfg).save_pretrained(d)
    tok.save_pretrained(d)
    word = models.Transformer(d, max_seq_length=16)
    pool = models.Pooling(word.get_embedding_dimension(), pooling_mode="mean")
    return SentenceTransformer(modules=[word, pool, models.Normalize()], device="cpu")


def show(name, emb):
    print(f"{name} {tuple(emb.shape)} {float(emb.sum()):.5f} {float(abs(emb).sum()):.5f} "
          f"{[round(float(v), 5) for v in emb.reshape(-1)[:3]]}")


with tempfile.TemporaryDirectory() as d:
    model = build(d)
    print(f"modules {[type(m).__name__ for m in model]} dim {model.get_embedding_dimension()}")
    emb = model.encode(SENTS, convert_to_tensor=True)
    show("encode tensor", emb)
    show("encode numpy", model.encode(SENTS[:3], batch_size=2))
    sim = util.cos_sim(emb, model.encode(PARA, convert_to_tensor=True))
    show("cos_sim", sim)
    print(f"similarity {tuple(model.similarity(emb[:2], emb[:3]).shape)}")

    mnrl = losses.MultipleNegativesRankingLoss(model)
    cosl = losses.CosineSimilarityLoss(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.train()
    for step in range(4):
        a = model.preprocess(SENTS)
        p = model.preprocess(PARA)
        loss = mnrl([a, p], None)
        labels = torch.from_numpy(np.linspace(0, 1, len(SENTS)).astype(np.float32))
        loss2 = cosl([model.preprocess(SENTS), model.preprocess(PARA[::-1])], labels)
        opt.zero_grad()
        (loss + loss2).backward()
        opt.step()
        print(f"train step {step} mnrl {loss.item():.5f} cosine {loss2.item():.5f}")
    model.eval()
    emb2 = model.encode(SENTS, convert_to_tensor=True)
    show("encode after training", emb2)
    sim2 = util.cos_sim(emb2, model.encode(PARA, convert_to_tensor=True))
    show("cos_sim after training", sim2)
    print(f"best match {sim2.argmax(dim=1).tolist()}")
    hits = util.semantic_search(emb2[:3], emb2, top_k=3)
    print(f"semantic search {[[(h['corpus_id'], round(h['score'], 4)) for h in q] for q in hits]}")
    out = os.path.join(d, "saved")
    model.save(out)
    again = SentenceTransformer(out, device="cpu")
    diff = (again.encode(SENTS, convert_to_tensor=True) - emb2).abs().max().item()
    print(f"reload maxdiff {diff:.6f}")
