"""A Child-Sum Tree-LSTM and a binary recursive network over Python-built trees (Tai et al. 2015; the
dasguptar/treelstm.pytorch and ttpro1995/TreeLSTMSentiment idioms); own code, synthetic arithmetic-like trees
whose label is a function of their leaves.

Trees are Python objects (``Tree`` with ``children`` lists) built recursively from ``torch.randint``; the
Child-Sum cell visits nodes post-order, stacks the children's states with ``torch.stack`` of variable-length lists
(``torch.zeros`` for leaves), sums them, computes per-child forget gates ``f_k = sigmoid(W_f x + U_f h_k)`` and
splits the fused ``iou`` projection with ``torch.split``; per-node predictions with ``log_softmax`` and
``nll_loss`` summed over nodes; a binary (left/right) recursive network with ``torch.cat`` compositions;
Adagrad (the paper's optimiser) with weight decay on the embeddings only, ``clip_grad_norm_``,
``CosineAnnealingLR``; bfloat16 ``autocast``; evaluation under ``torch.no_grad``; a ``state_dict`` round trip."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, D, H, C = 10, 16, 24, 3


class Tree:
    def __init__(self, word=None, children=()):
        self.word, self.children, self.state = word, list(children), None

    def leaves(self):
        return [self.word] if not self.children else [w for c in self.children for w in c.leaves()]

    def label(self):
        return sum(self.leaves()) % C

    def nodes(self):
        out = []
        for c in self.children:
            out.extend(c.nodes())
        return out + [self]

    def depth(self):
        return 1 + max((c.depth() for c in self.children), default=0)


def random_tree(depth=0, binary=False):
    if depth >= 3 or (depth > 0 and torch.rand(1).item() < 0.3):
        return Tree(int(torch.randint(0, V, (1,))))
    k = 2 if binary else int(torch.randint(1, 4, (1,)))
    return Tree(children=[random_tree(depth + 1, binary) for _ in range(k)])


class ChildSumTreeLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.ioux = nn.Linear(D, 3 * H)
        self.iouh = nn.Linear(H, 3 * H)
        self.fx = nn.Linear(D, H)
        self.fh = nn.Linear(H, H)
        self.out = nn.Linear(H, C)
        self.leaf_x = nn.Parameter(torch.zeros(D))  # internal nodes carry no word

    def node_forward(self, x, child_c, child_h):
        h_sum = child_h.sum(0, keepdim=True)
        i, o, u = torch.split(self.ioux(x) + self.iouh(h_sum), H, dim=1)
        i, o, u = torch.sigmoid(i), torch.sigmoid(o), torch.tanh(u)
        f = torch.sigmoid(self.fh(child_h) + self.fx(x).repeat(len(child_h), 1))
        c = i * u + torch.sum(f * child_c, dim=0, keepdim=True)
        return c, o * torch.tanh(c)

    def forward(self, tree):
        for child in tree.children:
            self.forward(child)
        if tree.children:
            child_c = torch.cat([ch.state[0] for ch in tree.children], 0)
            child_h = torch.stack([ch.state[1][0] for ch in tree.children])
            x = self.leaf_x.unsqueeze(0)
        else:
            child_c = child_h = torch.zeros(1, H)
            x = self.emb(torch.tensor([tree.word]))
        tree.state = self.node_forward(x, child_c, child_h)
        return tree.state

    def loss(self, tree):
        self.forward(tree)
        nodes = tree.nodes()
        hs = torch.cat([n.state[1] for n in nodes])
        labels = torch.tensor([n.label() for n in nodes])
        logp = F.log_softmax(self.out(hs), dim=1)
        return F.nll_loss(logp, labels, reduction="sum"), logp[-1].argmax().item() == tree.label()


class RecursiveNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, H)
        self.compose = nn.Linear(2 * H, H)
        self.out = nn.Linear(H, C)

    def forward(self, tree):
        if not tree.children:
            return self.emb.weight[tree.word]
        left, right = (self.forward(c) for c in tree.children)
        return torch.tanh(self.compose(torch.cat([left, right])))


trees = [random_tree() for _ in range(24)]
print("trees", [t.depth() for t in trees[:8]], [len(t.nodes()) for t in trees[:8]], [t.label() for t in trees[:8]])
print("leaves", trees[0].leaves(), "children", [len(t.children) for t in trees[:8]])

model = ChildSumTreeLSTM()
print("params", sum(p.numel() for p in model.parameters()))
emb_params = [model.emb.weight]
other = [p for n, p in model.named_parameters() if n != "emb.weight"]
opt = torch.optim.Adagrad([{"params": emb_params, "weight_decay": 1e-4}, {"params": other}], lr=0.05)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3, eta_min=0.005)
for epoch in range(3):
    total, correct = 0.0, 0
    for i in range(0, 16, 4):
        opt.zero_grad()
        batch_loss = 0
        for t in trees[i:i + 4]:
            loss, ok = model.loss(t)
            batch_loss = batch_loss + loss
            correct += ok
        (batch_loss / 4).backward()
        gn = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        total += batch_loss.item()
    sched.step()
    print(f"epoch {epoch} loss {total / 16:.4f} root acc {correct / 16:.4f} gn {gn.item():.4f} "
          f"lr {sched.get_last_lr()[0]:.5f}")
print("adagrad state", sorted(opt.state[model.fx.weight]), opt.state[model.fx.weight]["sum"].shape)

model.eval()
with torch.no_grad():
    accs = [model.loss(t)[1] for t in trees[16:]]
    root = model(trees[16])
print("eval root acc", sum(accs) / len(accs), "root state", tuple(root[0].shape), tuple(root[1].shape))
print("root h", root[1][0, :4])

rnn = RecursiveNet()
btrees = [random_tree(binary=True) for _ in range(12)]
opt2 = torch.optim.SGD(rnn.parameters(), lr=0.02, momentum=0.9)
for epoch in range(3):
    total = 0.0
    for t in btrees:
        logits = rnn.out(rnn(t))
        loss = F.cross_entropy(logits.unsqueeze(0), torch.tensor([t.label()]))
        opt2.zero_grad()
        loss.backward()
        opt2.step()
        total += loss.item()
    print(f"recursive epoch {epoch} loss {total / len(btrees):.4f}")
print("binary", all(len(n.children) in (0, 2) for t in btrees for n in t.nodes()))

with torch.autocast("cpu", dtype=torch.bfloat16):
    c, h = model(trees[0])
    lg = model.out(h)
print("autocast", c.dtype, h.dtype, lg.dtype)

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
m2 = ChildSumTreeLSTM()
print("load", m2.load_state_dict(torch.load(buf)), sorted(model.state_dict())[:3])
with torch.no_grad():
    print("same", torch.equal(m2(trees[5])[1], model(trees[5])[1]))
