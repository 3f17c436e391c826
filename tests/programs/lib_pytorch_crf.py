"""pytorch-crf (``torchcrf``) as its users use it: a BiLSTM-CRF sequence tagger on a synthetic tagging task
(tags depend on the token and its left neighbour, so the transitions matter), trained with Adam on the CRF's
negative log-likelihood over padded, variable-length batches (byte and bool masks, batch_first and
time-first layouts), every reduction (``none``/``sum``/``mean``/``token_mean``), Viterbi ``decode`` with and
without a mask, the CRF's validation errors, and a state_dict round trip through ``torch.save``."""
import io

import torch
from torch import nn
from torchcrf import CRF

NUM_TAGS, VOCAB, EMB, HID = 5, 12, 8, 10


def r(x, n=4):
    return round(float(x), n)


def make_batch(g, batch, max_len):
    lengths = torch.randint(3, max_len + 1, (batch,), generator=g)
    lengths[0] = max_len
    tokens = torch.randint(1, VOCAB, (batch, max_len), generator=g)
    mask = torch.arange(max_len).unsqueeze(0) < lengths.unsqueeze(1)
    tokens = tokens.masked_fill(~mask, 0)
    prev = torch.cat([torch.zeros(batch, 1, dtype=torch.long), tokens[:, :-1]], dim=1)
    tags = (tokens + 2 * prev) % NUM_TAGS
    tags = tags.masked_fill(~mask, 0)
    return tokens, tags, mask


class Tagger(nn.Module):
    def __init__(self, batch_first=True):
        super().__init__()
        self.batch_first = batch_first
        self.emb = nn.Embedding(VOCAB, EMB, padding_idx=0)
        self.lstm = nn.LSTM(EMB, HID, bidirectional=True, batch_first=batch_first)
        self.proj = nn.Linear(2 * HID, NUM_TAGS)
        self.crf = CRF(NUM_TAGS, batch_first=batch_first)

    def emissions(self, tokens):
        h, _ = self.lstm(self.emb(tokens))
        return self.proj(h)

    def loss(self, tokens, tags, mask, reduction="mean"):
        return -self.crf(self.emissions(tokens), tags, mask=mask, reduction=reduction)

    def decode(self, tokens, mask=None):
        return self.crf.decode(self.emissions(tokens), mask=mask)


def accuracy(paths, tags, mask):
    good = total = 0
    for i, path in enumerate(paths):
        n = int(mask[i].sum())
        good += sum(int(p == t) for p, t in zip(path, tags[i, :n].tolist()))
        total += n
    return good / total


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    model = Tagger(batch_first=True)
    print("crf", repr(model.crf), tuple(model.crf.transitions.shape), r(model.crf.transitions.detach().sum()))
    print("params", sum(p.numel() for p in model.parameters()))
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    batches = [make_batch(g, 8, 9) for _ in range(4)]
    for epoch in range(6):
        total = 0.0
        for tokens, tags, mask in batches:
            opt.zero_grad()
            loss = model.loss(tokens, tags, mask.byte() if epoch % 2 else mask)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            total += loss.item()
        print("epoch", epoch, r(total / len(batches)))

    model.eval()
    tokens, tags, mask = make_batch(g, 6, 9)
    with torch.no_grad():
        em = model.emissions(tokens)
        for red in ("none", "sum", "mean", "token_mean"):
            llh = model.crf(em, tags, mask=mask, reduction=red)
            print("llh", red, tuple(llh.shape), [r(v) for v in llh.reshape(-1).tolist()])
        paths = model.decode(tokens, mask=mask)
        print("decode lengths", [len(p) for p in paths], "==", mask.sum(1).tolist())
        print("decode first", paths[0])
        print("decode acc", r(accuracy(paths, tags, mask)))
        full = model.decode(tokens)
        print("decode nomask", [len(p) for p in full], full[1])
        print("trans", r(model.crf.transitions.sum()), r(model.crf.start_transitions.abs().sum()),
              r(model.crf.end_transitions.max()))

    # the same CRF, time-first: transposed inputs give the same log-likelihoods and paths
    tf = CRF(NUM_TAGS, batch_first=False)
    tf.load_state_dict(model.crf.state_dict())
    with torch.no_grad():
        llh_tf = tf(em.transpose(0, 1), tags.t(), mask=mask.t().byte(), reduction="none")
        print("time-first llh", [r(v) for v in llh_tf.tolist()])
        print("time-first paths equal", tf.decode(em.transpose(0, 1), mask=mask.t()) == paths)

    # the gradient of the log-likelihood reaches the emissions and all three transition tensors
    em2 = em.detach().clone().requires_grad_(True)
    crf = CRF(NUM_TAGS, batch_first=True)
    crf.load_state_dict(model.crf.state_dict())
    ll = crf(em2, tags, mask=mask, reduction="token_mean")
    ll.backward()
    print("grad em", r(em2.grad.abs().sum()), r(em2.grad[~mask].abs().sum()), tuple(em2.grad.shape))
    print("grad trans", r(crf.transitions.grad.abs().sum()), r(crf.start_transitions.grad.abs().sum()),
          r(crf.end_transitions.grad.abs().sum()))
    # gradient of the log-partition w.r.t. emissions: marginals summing to one per unmasked step
    em3 = em.detach().clone().requires_grad_(True)
    z = crf._compute_normalizer(em3.transpose(0, 1), mask.t())
    z.sum().backward()
    marg = em3.grad
    print("marginals", [r(v, 3) for v in marg.sum(-1)[mask].reshape(-1)[:6].tolist()], r(marg[~mask].abs().sum()))

    # validation errors
    for args, kw in [((em[0],), {}), ((em[..., :3],), {}),
                     ((em,), {"mask": torch.zeros_like(mask)})]:
        try:
            crf.decode(*args, **kw)
        except ValueError as e:
            print("ValueError", e)
    try:
        crf(em, tags, reduction="avg")
    except ValueError as e:
        print("ValueError", e)
    try:
        crf(em, tags[:, :4])
    except ValueError as e:
        print("ValueError", e)
    try:
        CRF(0)
    except ValueError as e:
        print("ValueError", e)

    # save / load the whole tagger
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    clone = Tagger(batch_first=True)
    clone.load_state_dict(torch.load(buf))
    clone.eval()
    with torch.no_grad():
        print("reloaded same paths", clone.decode(tokens, mask=mask) == paths,
              r(clone.loss(tokens, tags, mask, reduction="sum")))


if __name__ == "__main__":
    main()
