"""Text classifier as a training script: a toy corpus tokenized and numericalized with a Counter vocabulary,
a length-bucketing Sampler subclass, a collate_fn that pads and sorts, pack_padded_sequence into a bidirectional
2-layer LSTM, pad_packed_sequence, masked additive attention pooling, gradient accumulation with clip_grad_norm_,
StepLR, early stopping on macro F1, a confusion matrix via bincount, checkpoint resume and a prediction helper."""
import argparse
import collections
import logging
import os
import random
import sys
import tempfile
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
from torch.utils.data import DataLoader, Dataset, Sampler

logger = logging.getLogger("textclf")
PAD, UNK = "<pad>", "<unk>"
TOPICS = {
    0: "goal match team score player league coach win season",
    1: "stock market price trade bank profit shares invest fund",
    2: "cpu chip code software data cloud model network server",
}
FILLER = "the a of and in to is was for on with".split()


@dataclass
class Args:
    emb_dim: int = 16
    hidden: int = 16
    layers: int = 2
    batch_size: int = 8
    accum: int = 2
    epochs: int = 4
    lr: float = 0.02
    clip: float = 1.0
    patience: int = 2
    seed: int = 42


def build_corpus(n, rng):
    data = []
    for _ in range(n):
        label = rng.randrange(3)
        words = TOPICS[label].split()
        length = rng.randint(4, 7)
        toks = [rng.choice(words) if rng.random() < 0.6 else rng.choice(FILLER) for _ in range(length)]
        if rng.random() < 0.15:
            toks.append(rng.choice(TOPICS[(label + 1) % 3].split()))
        data.append((" ".join(toks), label))
    return data


class Vocab:
    def __init__(self, texts, min_freq=2):
        counts = collections.Counter(tok for t in texts for tok in t.split())
        self.itos = [PAD, UNK] + sorted(w for w, c in counts.items() if c >= min_freq)
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode(self, text):
        return [self.stoi.get(tok, 1) for tok in text.split()]


class TextDataset(Dataset):
    def __init__(self, pairs, vocab):
        self.items = [(torch.tensor(vocab.encode(t), dtype=torch.long), y) for t, y in pairs]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class BucketSampler(Sampler):
    """Yields batches of indices of similar length (shuffled within and across buckets)."""

    def __init__(self, lengths, batch_size, generator):
        self.lengths, self.batch_size, self.generator = lengths, batch_size, generator

    def __iter__(self):
        perm = torch.randperm(len(self.lengths), generator=self.generator)
        order = sorted(perm.tolist(), key=lambda i: self.lengths[i])
        batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        for j in torch.randperm(len(batches), generator=self.generator).tolist():
            yield batches[j]

    def __len__(self):
        return (len(self.lengths) + self.batch_size - 1) // self.batch_size


def collate(batch):
    batch = sorted(batch, key=lambda b: b[0].numel(), reverse=True)
    seqs, labels = zip(*batch)
    lengths = torch.tensor([s.numel() for s in seqs])
    padded = nn.utils.rnn.pad_sequence(list(seqs), batch_first=True, padding_value=0)
    return padded, lengths, torch.tensor(labels)


class AttentionPool(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.v = nn.Parameter(torch.empty(dim).uniform_(-0.1, 0.1))

    def forward(self, h, mask):
        scores = torch.tanh(self.proj(h)) @ self.v
        scores = scores.masked_fill(~mask, float("-inf"))
        alpha = F.softmax(scores, dim=1)
        return torch.bmm(alpha.unsqueeze(1), h).squeeze(1), alpha


class BiLSTMClassifier(nn.Module):
    def __init__(self, vocab_size, args, n_classes=3):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, args.emb_dim, padding_idx=0)
        self.lstm = nn.LSTM(args.emb_dim, args.hidden, num_layers=args.layers, bidirectional=True,
                            batch_first=True, dropout=0.1)
        self.pool = AttentionPool(2 * args.hidden)
        self.fc = nn.Sequential(nn.Dropout(0.2), nn.Linear(4 * args.hidden, n_classes))

    def forward(self, tokens, lengths):
        emb = self.embedding(tokens)
        packed = pack_padded_sequence(emb, lengths, batch_first=True, enforce_sorted=True)
        out, (h_n, c_n) = self.lstm(packed)
        out, out_lens = pad_packed_sequence(out, batch_first=True, total_length=tokens.shape[1])
        mask = torch.arange(tokens.shape[1])[None, :] < out_lens[:, None]
        pooled, alpha = self.pool(out, mask)
        final = torch.cat([h_n[-2], h_n[-1]], dim=1)
        return self.fc(torch.cat([pooled, final], dim=1)), alpha


def f1_scores(cm):
    tp = cm.diag().float()
    precision = tp / cm.sum(0).float().clamp_min(1)
    recall = tp / cm.sum(1).float().clamp_min(1)
    return torch.nan_to_num(2 * precision * recall / (precision + recall))


def train(model, loader, optimizer, args):
    model.train()
    total, seen = 0.0, 0
    for i, (tokens, lengths, labels) in enumerate(loader):
        logits, _ = model(tokens, lengths)
        loss = F.cross_entropy(logits, labels)
        (loss / args.accum).backward()
        if (i + 1) % args.accum == 0 or i + 1 == len(loader):
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            optimizer.step()
            optimizer.zero_grad()
        total += loss.item() * labels.numel()
        seen += labels.numel()
    return total / seen


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    cm = torch.zeros(3, 3, dtype=torch.long)
    for tokens, lengths, labels in loader:
        logits, _ = model(tokens, lengths)
        cm += torch.bincount(labels * 3 + logits.argmax(1), minlength=9).view(3, 3)
    return cm


def predict(model, vocab, text):
    ids = torch.tensor([vocab.encode(text)])
    with torch.no_grad():
        logits, alpha = model.eval()(ids, torch.tensor([ids.shape[1]]))
    return F.softmax(logits, -1)[0], alpha[0]


def main():
    parser = argparse.ArgumentParser()
    for name, value in vars(Args()).items():
        parser.add_argument("--" + name.replace("_", "-"), type=type(value), default=value)
    args = Args(**vars(parser.parse_args([])))
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(asctime)s %(message)s",
                        datefmt="X")
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.enabled = True
    torch.backends.cudnn.deterministic = True
    rng = random.Random(args.seed)
    train_pairs, val_pairs = build_corpus(64, rng), build_corpus(30, rng)
    vocab = Vocab([t for t, _ in train_pairs])
    print("vocab", len(vocab), vocab.itos[:6], vocab.encode("goal zzz the"))
    train_ds, val_ds = TextDataset(train_pairs, vocab), TextDataset(val_pairs, vocab)
    sampler = BucketSampler([x.numel() for x, _ in train_ds.items], args.batch_size,
                            torch.Generator().manual_seed(args.seed))
    train_loader = DataLoader(train_ds, batch_sampler=sampler, collate_fn=collate)
    val_loader = DataLoader(val_ds, batch_size=10, shuffle=False, collate_fn=collate)
    tokens, lengths, labels = next(iter(train_loader))
    print("batch", tuple(tokens.shape), lengths.tolist(), len(train_loader))
    packed = pack_padded_sequence(tokens, lengths, batch_first=True)
    print("packed", packed.batch_sizes.tolist(), packed.data.shape[0] == lengths.sum().item())

    model = BiLSTMClassifier(len(vocab), args)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    ckpt_path = os.path.join(tempfile.mkdtemp(), "best.pt")
    best_f1, bad_epochs = 0.0, 0
    for epoch in range(1, args.epochs + 1):
        loss = train(model, train_loader, optimizer, args)
        scheduler.step()
        cm = evaluate(model, val_loader)
        f1 = f1_scores(cm)
        logger.info("epoch %d | loss %.4f | acc %.4f | macro-F1 %.4f | lr %.4f", epoch, loss,
                    (cm.diag().sum() / cm.sum()).item(), f1.mean().item(), scheduler.get_last_lr()[0])
        if f1.mean().item() > best_f1:
            best_f1, bad_epochs = f1.mean().item(), 0
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "epoch": epoch, "rng": torch.get_rng_state(),
                        "vocab": vocab.itos}, ckpt_path)
        else:
            bad_epochs += 1
            if bad_epochs >= args.patience:
                logger.info("no improvement for %d epochs, stopping", bad_epochs)
                break
    print("confusion", cm.tolist(), [round(v, 4) for v in f1.tolist()])
    ckpt = torch.load(ckpt_path)
    restored = BiLSTMClassifier(len(ckpt["vocab"]), args)
    restored.load_state_dict(ckpt["model"])
    opt = torch.optim.Adam(restored.parameters(), lr=args.lr)
    opt.load_state_dict(ckpt["optimizer"])
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    sched.load_state_dict(ckpt["scheduler"])
    torch.set_rng_state(ckpt["rng"])
    print("restored epoch", ckpt["epoch"], "lr", sched.get_last_lr(), "state steps",
          sorted({int(s["step"]) for s in opt.state.values()}))
    loss = train(restored, train_loader, opt, args)
    print(f"resumed epoch loss {loss:.4f}")
    probs, alpha = predict(restored, vocab, "the stock price of the bank")
    print("predict", [round(p, 4) for p in probs.tolist()], [round(a, 4) for a in alpha.tolist()])
    print("lstm weights", [n for n, _ in restored.lstm.named_parameters()][:4], restored.lstm.weight_ih_l1.shape)
    n = sum(p.numel() for p in restored.parameters())
    print(f"model has {n:,} trainable parameters")
    print(restored)


if __name__ == "__main__":
    main()
