"""Three well-known recipes in one program (own code, synthetic data): sthalles/SimCLR's ``info_nce_loss``
(``torch.cat([torch.arange(batch_size) for i in range(n_views)])``, ``(labels.unsqueeze(0) ==
labels.unsqueeze(1)).float()``, ``F.normalize``, ``similarity_matrix[~mask].view(...)``, positives/negatives
``torch.cat`` with zero labels, ``/ temperature``) with tensor-op augmentations and ``topk`` accuracy, under
``torch.autocast('cpu', dtype=torch.bfloat16)`` for the projection head; pytorch/tutorials
``knowledge_distillation_tutorial`` (``train_knowledge_distillation`` with ``soft_targets * (soft_targets.log() -
soft_prob)`` times ``T**2``, ``nn.KLDivLoss(reduction='batchmean', log_target=True)``, the cosine-loss variant
with ``F.avg_pool1d`` and ``nn.CosineEmbeddingLoss``, and a forward hook capturing a teacher's hidden
features); and a deepspeech-style CTC step (bidirectional ``nn.GRU`` over ``pack_padded_sequence``,
``F.log_softmax(...).transpose(0, 1)``, ``nn.CTCLoss(blank=0, zero_infinity=True)`` with per-sample lengths,
greedy decoding with ``torch.unique_consecutive``)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

torch.manual_seed(0)


# ---------------- SimCLR ----------------
class ResNetSimCLR(nn.Module):
    def __init__(self, out_dim):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 16))
        dim_mlp = self.backbone[-1].in_features
        self.backbone[-1] = nn.Sequential(nn.Linear(dim_mlp, dim_mlp), nn.ReLU(), self.backbone[-1])
        self.out_dim = out_dim

    def forward(self, x):
        return self.backbone(x)


def augment(x, g):
    flip = torch.rand(x.size(0), generator=g) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(-1), x)
    shift = int(torch.randint(-2, 3, (1,), generator=g))
    x = torch.roll(x, shifts=shift, dims=2)
    gray = x.mean(1, keepdim=True).expand_as(x)
    w = torch.rand(x.size(0), 1, 1, 1, generator=g)
    x = w * x + (1 - w) * gray
    x = F.interpolate(F.interpolate(x, scale_factor=0.5, mode='bilinear', align_corners=False), size=x.shape[-2:],
                      mode='bilinear', align_corners=False) * 0.5 + 0.5 * x
    return x


def info_nce_loss(features, batch_size, n_views=2, temperature=0.07):
    labels = torch.cat([torch.arange(batch_size) for i in range(n_views)], dim=0)
    labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()
    features = F.normalize(features, dim=1)
    similarity_matrix = torch.matmul(features, features.T)
    mask = torch.eye(labels.shape[0], dtype=torch.bool)
    labels = labels[~mask].view(labels.shape[0], -1)
    similarity_matrix = similarity_matrix[~mask].view(similarity_matrix.shape[0], -1)
    positives = similarity_matrix[labels.bool()].view(labels.shape[0], -1)
    negatives = similarity_matrix[~labels.bool()].view(similarity_matrix.shape[0], -1)
    logits = torch.cat([positives, negatives], dim=1)
    labels = torch.zeros(logits.shape[0], dtype=torch.long)
    logits = logits / temperature
    return logits, labels


def accuracy(output, target, topk=(1,)):
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


g = torch.Generator().manual_seed(5)
images = torch.rand(6, 3, 8, 8, generator=g)
model = ResNetSimCLR(16)
optimizer = torch.optim.Adam(model.parameters(), 3e-3, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=4, eta_min=0, last_epoch=-1)
criterion = torch.nn.CrossEntropyLoss()
views = torch.cat([augment(images, g), augment(images, g)], dim=0)
with torch.autocast('cpu', dtype=torch.bfloat16):  # (the repo's fp16 autocast, on CPU: forward only)
    features = model(views)
    logits, labels = info_nce_loss(features, images.size(0))
    loss = criterion(logits, labels)
print("simclr autocast", features.dtype, logits.dtype, loss.dtype, tuple(logits.shape), round(loss.item(), 2),
      round(logits.float().abs().sum().item(), 1))
for n_iter in range(3):
    views = torch.cat([augment(images, g), augment(images, g)], dim=0)
    features = model(views)
    logits, labels = info_nce_loss(features, images.size(0))
    loss = criterion(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    top1, top5 = accuracy(logits, labels, topk=(1, 5))
    print("simclr", n_iter, features.dtype, logits.dtype, tuple(logits.shape), round(loss.item(), 2),
          top1.item(), top5.item(), round(scheduler.get_last_lr()[0], 6))


# ---------------- knowledge distillation ----------------
class DeepNN(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 8, 3, padding=1),
                                      nn.ReLU(), nn.MaxPool2d(2, 2))
        self.classifier = nn.Sequential(nn.Linear(128, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


class LightNN(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2, 2))
        self.classifier = nn.Sequential(nn.Linear(64, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


torch.manual_seed(1)
X = torch.randn(32, 3, 8, 8)
Y = (X[:, 0].mean((1, 2)) > 0).long() + 2 * (X[:, 1].mean((1, 2)) > 0).long()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, Y), batch_size=8, shuffle=True)
teacher = DeepNN()
opt_t = torch.optim.Adam(teacher.parameters(), lr=1e-3)
for inputs, labels in loader:
    opt_t.zero_grad()
    F.cross_entropy(teacher(inputs), labels).backward()
    opt_t.step()
captured = {}
handle = teacher.features.register_forward_hook(lambda m, i, o: captured.__setitem__("feat", o.detach()))


def train_knowledge_distillation(teacher, student, train_loader, epochs, learning_rate, T, soft_target_loss_weight,
                                 ce_loss_weight):
    ce_loss = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(student.parameters(), lr=learning_rate)
    teacher.eval()
    student.train()
    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            optimizer.zero_grad()
            with torch.no_grad():
                teacher_logits = teacher(inputs)
            student_logits = student(inputs)
            soft_targets = nn.functional.softmax(teacher_logits / T, dim=-1)
            soft_prob = nn.functional.log_softmax(student_logits / T, dim=-1)
            soft_targets_loss = torch.sum(soft_targets * (soft_targets.log() - soft_prob)) / soft_prob.size()[0] * (T**2)
            label_loss = ce_loss(student_logits, labels)
            loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"Epoch {epoch+1}/{epochs}, Loss: {running_loss / len(train_loader):.4f}")


torch.manual_seed(2)
student = LightNN()
train_knowledge_distillation(teacher, student, loader, epochs=2, learning_rate=1e-3, T=2,
                             soft_target_loss_weight=0.25, ce_loss_weight=0.75)
print("hook feature", tuple(captured["feat"].shape), round(captured["feat"].mean().item(), 4))
handle.remove()
kl = nn.KLDivLoss(reduction="batchmean", log_target=True)
with torch.no_grad():
    t_log = F.log_softmax(teacher(X[:8]) / 2, -1)
    s_log = F.log_softmax(student(X[:8]) / 2, -1)
print("kl batchmean", round(kl(s_log, t_log).item(), 5), round(F.kl_div(s_log, t_log.exp(), reduction="sum").item() / 8, 5),
      round(F.kl_div(s_log, t_log, reduction="none", log_target=True).sum(1).max().item(), 5))
student_feats = student.features(X[:8]).flatten(1)
teacher_feats = F.avg_pool1d(teacher.features(X[:8]).flatten(1), 2)
cosine_loss = nn.CosineEmbeddingLoss()
closs = cosine_loss(student_feats, teacher_feats.detach(), target=torch.ones(8))
closs.backward()
print("cosine", tuple(teacher_feats.shape), round(closs.item(), 4),
      round(student.features[0].weight.grad.abs().sum().item(), 4),
      round(F.cosine_similarity(student_feats, teacher_feats, dim=1).mean().item(), 4))


# ---------------- CTC ----------------
class SpeechRNN(nn.Module):
    def __init__(self, n_feats=6, hidden=12, n_class=5):
        super().__init__()
        self.rnn = nn.GRU(n_feats, hidden, num_layers=2, batch_first=True, bidirectional=True, dropout=0.0)
        self.fc = nn.Linear(2 * hidden, n_class)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, h = self.rnn(packed)
        out, out_lengths = pad_packed_sequence(out, batch_first=True)
        return self.fc(out), out_lengths, h


torch.manual_seed(4)
B, Tmax = 4, 12
feats = torch.randn(B, Tmax, 6)
input_lengths = torch.tensor([12, 9, 11, 7])
targets = torch.randint(1, 5, (B, 4))
target_lengths = torch.tensor([4, 3, 2, 3])
net = SpeechRNN()
ctc = nn.CTCLoss(blank=0, zero_infinity=True)
opt = torch.optim.AdamW(net.parameters(), 5e-3)
for step in range(3):
    out, out_lengths, h = net(feats, input_lengths)
    log_probs = F.log_softmax(out, dim=2).transpose(0, 1)
    loss = ctc(log_probs, targets, out_lengths, target_lengths)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(net.parameters(), 1.0)
    opt.step()
    print("ctc", step, tuple(log_probs.shape), out_lengths.tolist(), tuple(h.shape), round(loss.item(), 4))
flat = torch.cat([targets[i, :target_lengths[i]] for i in range(B)])
print("ctc concat targets", round(F.ctc_loss(log_probs.detach(), flat, input_lengths, target_lengths,
                                             reduction='sum').item(), 3),
      round(F.ctc_loss(log_probs.detach(), targets, input_lengths, target_lengths, reduction='none')[1].item(), 3))
impossible = F.ctc_loss(log_probs.detach()[:2], targets, torch.full((B,), 2), target_lengths, reduction='none',
                        zero_infinity=False)
print("ctc impossible", impossible.tolist())
best = out.argmax(-1)
decoded = []
for i in range(B):
    seq = torch.unique_consecutive(best[i, :out_lengths[i]])
    decoded.append(seq[seq != 0].tolist())
print("greedy", len(decoded), [len(d) <= int(l) for d, l in zip(decoded, out_lengths)])
u, inv, cnt = torch.unique_consecutive(torch.tensor([1, 1, 0, 2, 2, 2, 0, 1]), return_inverse=True, return_counts=True)
print("unique_consecutive", u.tolist(), inv.tolist(), cnt.tolist())
