"""Three self-supervised papers' reference idioms (own code, synthetic images, no downloads).

MoCo v2 after facebookresearch/moco builder.py: a key encoder copied with ``param_k.data.copy_(param_q.data)`` and
``requires_grad = False``, the momentum update ``param_k.data = param_k.data * m + param_q.data * (1. - m)`` under
``@torch.no_grad()``, a normalized ``queue`` buffer re-assigned through ``self.queue = F.normalize(...)``, a long
``queue_ptr`` buffer read with ``int(...)``, enqueue by slice assignment ``queue[:, ptr:ptr + b] = keys.T``,
shuffle-BN by ``torch.randperm`` + ``torch.argsort``, ``torch.einsum('nc,nc->n', [q, k])`` and
``torch.einsum('nc,ck->nk', [q, queue.clone().detach()])``, ``logits /= T``, main_moco's ``accuracy`` with
``topk(maxk, 1, True, True)`` and ``AverageMeter``, cosine lr set by hand on ``param_groups``.

BYOL after lucidrains/byol-pytorch: a ``NetWrapper`` that finds a hidden layer through
``dict([*net.named_modules()])`` and grabs it with ``register_forward_hook``, a ``copy.deepcopy`` target encoder,
the ``EMA`` class and ``update_moving_average`` over ``.data``, ``loss_fn = 2 - 2 * (x * y).sum(dim=-1)`` on
``F.normalize``d vectors.

SimSiam after facebookresearch/simsiam: the projector replacing ``encoder.fc`` with ``BatchNorm1d(dim,
affine=False)`` at the end, ``encoder.fc[6].bias.requires_grad = False``, ``nn.CosineSimilarity(dim=1)`` against
``z.detach()``, and param groups with a ``fix_lr`` key read back in ``adjust_learning_rate``."""
import copy
import math
from functools import wraps

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def small_encoder(num_classes=16):
    net = nn.Sequential()
    net.add_module("conv1", nn.Conv2d(3, 8, 3, padding=1, bias=False))
    net.add_module("bn1", nn.BatchNorm2d(8))
    net.add_module("relu", nn.ReLU(inplace=True))
    net.add_module("conv2", nn.Conv2d(8, 12, 3, stride=2, padding=1, bias=False))
    net.add_module("bn2", nn.BatchNorm2d(12))
    net.add_module("relu2", nn.ReLU(inplace=True))
    net.add_module("avgpool", nn.AdaptiveAvgPool2d((1, 1)))
    net.add_module("flatten", nn.Flatten(1))
    net.add_module("fc", nn.Linear(12, num_classes))
    return net


def augment(x, g):
    flip = torch.rand(x.size(0), generator=g) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(-1), x)
    noise = 0.1 * torch.randn(x.shape, generator=g)
    scale = 0.8 + 0.4 * torch.rand(x.size(0), 1, 1, 1, generator=g)
    return x * scale + noise


# ---------------------------------------------------------------- MoCo v2
class MoCo(nn.Module):
    def __init__(self, base_encoder, dim=16, K=32, m=0.99, T=0.2, mlp=True):
        super(MoCo, self).__init__()
        self.K = K
        self.m = m
        self.T = T
        self.encoder_q = base_encoder(num_classes=dim)
        self.encoder_k = base_encoder(num_classes=dim)
        if mlp:
            dim_mlp = self.encoder_q.fc.weight.shape[1]
            self.encoder_q.fc = nn.Sequential(nn.Linear(dim_mlp, dim_mlp), nn.ReLU(), self.encoder_q.fc)
            self.encoder_k.fc = nn.Sequential(nn.Linear(dim_mlp, dim_mlp), nn.ReLU(), self.encoder_k.fc)
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data.copy_(param_q.data)
            param_k.requires_grad = False
        self.register_buffer("queue", torch.randn(dim, K))
        self.queue = nn.functional.normalize(self.queue, dim=0)
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data = param_k.data * self.m + param_q.data * (1. - self.m)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr)
        assert self.K % batch_size == 0
        self.queue[:, ptr:ptr + batch_size] = keys.T
        ptr = (ptr + batch_size) % self.K
        self.queue_ptr[0] = ptr

    @torch.no_grad()
    def _batch_shuffle_single_gpu(self, x):
        idx_shuffle = torch.randperm(x.shape[0])
        idx_unshuffle = torch.argsort(idx_shuffle)
        return x[idx_shuffle], idx_unshuffle

    @torch.no_grad()
    def _batch_unshuffle_single_gpu(self, x, idx_unshuffle):
        return x[idx_unshuffle]

    def forward(self, im_q, im_k):
        q = self.encoder_q(im_q)
        q = nn.functional.normalize(q, dim=1)
        with torch.no_grad():
            self._momentum_update_key_encoder()
            im_k, idx_unshuffle = self._batch_shuffle_single_gpu(im_k)
            k = self.encoder_k(im_k)
            k = nn.functional.normalize(k, dim=1)
            k = self._batch_unshuffle_single_gpu(k, idx_unshuffle)
        l_pos = torch.einsum('nc,nc->n', [q, k]).unsqueeze(-1)
        l_neg = torch.einsum('nc,ck->nk', [q, self.queue.clone().detach()])
        logits = torch.cat([l_pos, l_neg], dim=1)
        logits /= self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        self._dequeue_and_enqueue(k)
        return logits, labels


class AverageMeter(object):
    def __init__(self, name, fmt=':f'):
        self.name = name
        self.fmt = fmt
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        fmtstr = '{name} {val' + self.fmt + '} ({avg' + self.fmt + '})'
        return fmtstr.format(**self.__dict__)


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


g = torch.Generator().manual_seed(1)
images = torch.randn(24, 3, 8, 8, generator=g)

moco = MoCo(small_encoder)
print("queue", tuple(moco.queue.shape), "norms", [round(v, 4) for v in moco.queue.norm(dim=0)[:3].tolist()],
      "ptr", moco.queue_ptr.dtype, "buffers", [n for n, _ in moco.named_buffers()][-2:])
print("trainable", sum(p.numel() for p in moco.parameters() if p.requires_grad),
      "frozen", sum(p.numel() for p in moco.parameters() if not p.requires_grad))
optimizer = torch.optim.SGD(filter(lambda p: p.requires_grad, moco.parameters()), 0.06, momentum=0.9,
                            weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()
losses = AverageMeter('Loss', ':.4e')
top1 = AverageMeter('Acc@1', ':6.2f')
epochs = 3
for epoch in range(epochs):
    lr = 0.06 * 0.5 * (1. + math.cos(math.pi * epoch / epochs))
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr
    for i in range(0, 24, 8):
        x = images[i:i + 8]
        output, target = moco(im_q=augment(x, g), im_k=augment(x, g))
        loss = criterion(output, target)
        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        losses.update(loss.item(), x.size(0))
        top1.update(acc1[0], x.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("moco epoch", epoch, str(losses), "ptr", int(moco.queue_ptr), "lr", round(lr, 5))
print("logits", tuple(output.shape), output.dtype, "target", target.tolist()[:3], "acc type", type(acc1[0]).__name__,
      tuple(acc1[0].shape))
print("queue norms", [round(v, 4) for v in moco.queue.norm(dim=0)[:4].tolist()])
print("key grad", moco.encoder_k.conv1.weight.grad is None, moco.encoder_k.conv1.weight.requires_grad,
      "q grad", tuple(moco.encoder_q.conv1.weight.grad.shape))
diff = sum((pq - pk).abs().sum() for pq, pk in zip(moco.encoder_q.parameters(), moco.encoder_k.parameters()))
print("q-k distance", f"{diff.item():.4f}")
print("einsum", torch.einsum('nc,ck->nk', [torch.eye(2), torch.arange(6.).view(2, 3)]).tolist())


# ---------------------------------------------------------------- BYOL
def default(val, def_val):
    return def_val if val is None else val


def singleton(cache_key):
    def inner_fn(fn):
        @wraps(fn)
        def wrapper(self, *args, **kwargs):
            instance = getattr(self, cache_key)
            if instance is not None:
                return instance
            instance = fn(self, *args, **kwargs)
            setattr(self, cache_key, instance)
            return instance
        return wrapper
    return inner_fn


def set_requires_grad(model, val):
    for p in model.parameters():
        p.requires_grad = val


def loss_fn(x, y):
    x = F.normalize(x, dim=-1, p=2)
    y = F.normalize(y, dim=-1, p=2)
    return 2 - 2 * (x * y).sum(dim=-1)


class EMA():
    def __init__(self, beta):
        super().__init__()
        self.beta = beta

    def update_average(self, old, new):
        if old is None:
            return new
        return old * self.beta + (1 - self.beta) * new


def update_moving_average(ema_updater, ma_model, current_model):
    for current_params, ma_params in zip(current_model.parameters(), ma_model.parameters()):
        old_weight, up_weight = ma_params.data, current_params.data
        ma_params.data = ema_updater.update_average(old_weight, up_weight)


def MLP(dim, projection_size, hidden_size=32):
    return nn.Sequential(nn.Linear(dim, hidden_size), nn.BatchNorm1d(hidden_size), nn.ReLU(inplace=True),
                         nn.Linear(hidden_size, projection_size))


class NetWrapper(nn.Module):
    def __init__(self, net, projection_size, projection_hidden_size, layer=-2):
        super().__init__()
        self.net = net
        self.layer = layer
        self.projector = None
        self.projection_size = projection_size
        self.projection_hidden_size = projection_hidden_size
        self.hidden = {}
        self.hook_registered = False

    def _find_layer(self):
        if type(self.layer) == str:
            modules = dict([*self.net.named_modules()])
            return modules.get(self.layer, None)
        elif type(self.layer) == int:
            children = [*self.net.children()]
            return children[self.layer]
        return None

    def _hook(self, _, input, output):
        device = input[0].device
        self.hidden[device] = output.flatten(1)

    def _register_hook(self):
        layer = self._find_layer()
        assert layer is not None, f'hidden layer ({self.layer}) not found'
        layer.register_forward_hook(self._hook)
        self.hook_registered = True

    @singleton('projector')
    def _get_projector(self, hidden):
        _, dim = hidden.shape
        return MLP(dim, self.projection_size, self.projection_hidden_size).to(hidden)

    def get_representation(self, x):
        if not self.hook_registered:
            self._register_hook()
        self.hidden.clear()
        _ = self.net(x)
        hidden = self.hidden[x.device]
        self.hidden.clear()
        assert hidden is not None, f'hidden layer {self.layer} never emitted an output'
        return hidden

    def forward(self, x, return_projection=True):
        representation = self.get_representation(x)
        if not return_projection:
            return representation
        projector = self._get_projector(representation)
        projection = projector(representation)
        return projection, representation


class BYOL(nn.Module):
    def __init__(self, net, hidden_layer='avgpool', projection_size=8, projection_hidden_size=32,
                 moving_average_decay=0.9):
        super().__init__()
        self.net = net
        self.online_encoder = NetWrapper(net, projection_size, projection_hidden_size, layer=hidden_layer)
        self.target_encoder = None
        self.target_ema_updater = EMA(moving_average_decay)
        self.online_predictor = MLP(projection_size, projection_size, projection_hidden_size)
        self.forward(torch.randn(2, 3, 8, 8))

    @singleton('target_encoder')
    def _get_target_encoder(self):
        target_encoder = copy.deepcopy(self.online_encoder)
        set_requires_grad(target_encoder, False)
        return target_encoder

    def update_moving_average(self):
        assert self.target_encoder is not None, 'target encoder has not been created yet'
        update_moving_average(self.target_ema_updater, self.target_encoder, self.online_encoder)

    def forward(self, x, g=None, return_embedding=False):
        if return_embedding:
            return self.online_encoder(x, return_projection=False)
        image_one = augment(x, g) if g is not None else x
        image_two = augment(x, g) if g is not None else x.flip(-1)
        images = torch.cat((image_one, image_two), dim=0)
        online_projections, _ = self.online_encoder(images)
        online_predictions = self.online_predictor(online_projections)
        online_pred_one, online_pred_two = online_predictions.chunk(2, dim=0)
        with torch.no_grad():
            target_encoder = self._get_target_encoder()
            target_projections, _ = target_encoder(images)
            target_projections = target_projections.detach()
            target_proj_one, target_proj_two = target_projections.chunk(2, dim=0)
        loss_one = loss_fn(online_pred_one, target_proj_two.detach())
        loss_two = loss_fn(online_pred_two, target_proj_one.detach())
        loss = loss_one + loss_two
        return loss.mean()


torch.manual_seed(1)
learner = BYOL(small_encoder(16))
print("byol hook layer", type(learner.online_encoder._find_layer()).__name__, "projector",
      type(learner.online_encoder.projector).__name__, "target frozen",
      all(not p.requires_grad for p in learner.target_encoder.parameters()))
# SGD rather than the README's Adam: the Linear biases in front of BatchNorm1d get mathematically-zero gradients
# (rounding noise near 1e-6) that Adam would blow up to full lr-sized steps of random sign
opt = torch.optim.SGD(learner.parameters(), lr=0.05, momentum=0.9)
for step in range(4):
    loss = learner(images[:8], g)
    opt.zero_grad()
    loss.backward()
    opt.step()
    learner.update_moving_average()
    print("byol step", step, f"{loss.item():.5f}")
emb = learner(images[:4], return_embedding=True)
print("embedding", tuple(emb.shape), emb.requires_grad, "hidden cache", len(learner.online_encoder.hidden))
tw = learner.target_encoder.net.conv1.weight
ow = learner.online_encoder.net.conv1.weight
print("ema gap", f"{(tw - ow).abs().mean().item():.5f}", "target requires_grad", tw.requires_grad,
      "same object", tw is ow)


# ---------------------------------------------------------------- SimSiam
class SimSiam(nn.Module):
    def __init__(self, base_encoder, dim=16, pred_dim=8):
        super(SimSiam, self).__init__()
        self.encoder = base_encoder(num_classes=dim)
        prev_dim = self.encoder.fc.weight.shape[1]
        self.encoder.fc = nn.Sequential(nn.Linear(prev_dim, prev_dim, bias=False),
                                        nn.BatchNorm1d(prev_dim),
                                        nn.ReLU(inplace=True),
                                        nn.Linear(prev_dim, prev_dim, bias=False),
                                        nn.BatchNorm1d(prev_dim),
                                        nn.ReLU(inplace=True),
                                        self.encoder.fc,
                                        nn.BatchNorm1d(dim, affine=False))
        self.encoder.fc[6].bias.requires_grad = False
        self.predictor = nn.Sequential(nn.Linear(dim, pred_dim, bias=False),
                                       nn.BatchNorm1d(pred_dim),
                                       nn.ReLU(inplace=True),
                                       nn.Linear(pred_dim, dim))

    def forward(self, x1, x2):
        z1 = self.encoder(x1)
        z2 = self.encoder(x2)
        p1 = self.predictor(z1)
        p2 = self.predictor(z2)
        return p1, p2, z1.detach(), z2.detach()


def adjust_learning_rate(optimizer, init_lr, epoch, epochs):
    cur_lr = init_lr * 0.5 * (1. + math.cos(math.pi * epoch / epochs))
    for param_group in optimizer.param_groups:
        if 'fix_lr' in param_group and param_group['fix_lr']:
            param_group['lr'] = init_lr
        else:
            param_group['lr'] = cur_lr


torch.manual_seed(2)
model = SimSiam(small_encoder)
print("simsiam last bn", model.encoder.fc[7], "fc bias grad", model.encoder.fc[6].bias.requires_grad)
criterion = nn.CosineSimilarity(dim=1)
init_lr = 0.05 * 8 / 256 * 100
optim_params = [{'params': model.encoder.parameters(), 'fix_lr': False},
                {'params': model.predictor.parameters(), 'fix_lr': True}]
optimizer = torch.optim.SGD(optim_params, init_lr, momentum=0.9, weight_decay=1e-4)
for epoch in range(3):
    adjust_learning_rate(optimizer, init_lr, epoch, 3)
    for i in range(0, 16, 8):
        x = images[i:i + 8]
        p1, p2, z1, z2 = model(x1=augment(x, g), x2=augment(x, g))
        loss = -(criterion(p1, z2).mean() + criterion(p2, z1).mean()) * 0.5
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print("simsiam epoch", epoch, f"{loss.item():.5f}", "lrs", [round(gr['lr'], 5) for gr in optimizer.param_groups],
          "fix_lr", [gr['fix_lr'] for gr in optimizer.param_groups])
z_std = F.normalize(z1, dim=1).std(dim=0).mean()
print("collapse check", f"{z_std.item():.4f}", "bn running", tuple(model.encoder.fc[7].running_mean.shape),
      model.encoder.fc[7].weight is None, int(model.encoder.fc[7].num_batches_tracked))
