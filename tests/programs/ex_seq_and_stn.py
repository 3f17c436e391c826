"""Spatial transformer tutorial (affine_grid + grid_sample), packed-sequence classifier
(pad_sequence, pack_padded_sequence, padding_idx), DataParallel on CPU, CTC loss, one_hot/scatter/gather."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(3)


class STN(nn.Module):
    def __init__(self):
        super().__init__()
        self.localization = nn.Sequential(nn.Conv2d(1, 4, kernel_size=3), nn.MaxPool2d(2, stride=2), nn.ReLU(True))
        self.fc_loc = nn.Sequential(nn.Linear(4 * 3 * 3, 8), nn.ReLU(True), nn.Linear(8, 3 * 2))
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))
        self.out = nn.Linear(64, 3)

    def forward(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 4 * 3 * 3)
        theta = self.fc_loc(xs).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        x = F.grid_sample(x, grid, align_corners=False)
        return F.log_softmax(self.out(x.flatten(1)), dim=1)


stn = STN()
opt = torch.optim.SGD(stn.parameters(), lr=0.05)
x = torch.rand(4, 1, 8, 8)
t = torch.tensor([0, 1, 2, 1])
for step in range(3):
    opt.zero_grad()
    loss = F.nll_loss(stn(x), t)
    loss.backward()
    opt.step()
    print(f"stn step {step} loss {loss.item():.5f}")


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(12, 6, padding_idx=0)
        self.rnn = nn.GRU(6, 8, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(16, 2)

    def forward(self, seqs, lengths):
        packed = pack_padded_sequence(self.emb(seqs), lengths, batch_first=True, enforce_sorted=False)
        out, h = self.rnn(packed)
        out, out_lens = pad_packed_sequence(out, batch_first=True)
        return self.fc(torch.cat([h[-2], h[-1]], dim=1)), out, out_lens


seqs = [torch.randint(1, 12, (n,)) for n in (5, 3, 4)]
lengths = torch.tensor([len(s) for s in seqs])
padded = pad_sequence(seqs, batch_first=True, padding_value=0)
clf = nn.DataParallel(Classifier())
copt = torch.optim.Adam(clf.parameters(), lr=0.01)
for step in range(3):
    copt.zero_grad()
    logits, out, out_lens = clf(padded, lengths)
    loss = F.cross_entropy(logits, torch.tensor([0, 1, 1]))
    loss.backward()
    copt.step()
    print(f"gru step {step} loss {loss.item():.5f} out {tuple(out.shape)} lens {out_lens.tolist()} "
          f"pad {out[1, 3:].abs().sum().item():.1f} emb0 {clf.module.emb.weight.grad[0].abs().sum().item():.1f}")
print("state keys", list(clf.state_dict().keys())[:2])
log_probs = torch.randn(6, 2, 5).log_softmax(2).detach().requires_grad_()
targets = torch.tensor([[1, 2, 2], [3, 1, 0]])
ctc = nn.CTCLoss(blank=0, zero_infinity=True)
closs = ctc(log_probs, targets, torch.tensor([6, 6]), torch.tensor([3, 2]))
closs.backward()
print(f"ctc {closs.item():.5f} grad {log_probs.grad.abs().sum().item():.5f}")
labels = torch.tensor([2, 0, 1])
oh = F.one_hot(labels, num_classes=4).float()
src = torch.arange(6.).view(3, 2)
agg = torch.zeros(4, 2).scatter_add_(0, labels.unsqueeze(1).expand(-1, 2), src)
print("onehot", oh.sum(0).tolist(), "scatter", agg.flatten().tolist(),
      "gather", torch.gather(src, 1, torch.tensor([[1], [0], [1]])).flatten().tolist())
