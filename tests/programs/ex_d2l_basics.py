"""Dive into Deep Learning (d2l.ai, PyTorch edition), preliminaries and chapters 3-5 in its own style (own code,
synthetic data, no d2l package): ndarray / autograd basics, linear regression from scratch (torch.normal
synthetic_data, a yield-based data_iter, manual minibatch SGD under no_grad) and concise (nn.Sequential,
weight.data.normal_, TensorDataset + DataLoader), softmax regression from scratch (X_exp.sum(1, keepdim=True),
y_hat[range(len(y_hat)), y], an Accumulator) and concise (net.apply(init_weights), reduction='none'), MLP from
scratch, dropout from scratch, weight decay (l2_penalty, and per-group weight_decay), numerical stability
(sigmoid gradient, xavier_uniform_), a custom layer and parameter access. Prints one fact per line."""
import math
import random

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils import data

torch.manual_seed(0)
random.seed(0)


def r(x, n=5):
    """A float rounded to n significant digits, printed the same under both libraries."""
    return float(f"{float(x):.{n}g}")


# ---- 2.1 / 2.5 ndarray and autograd --------------------------------------------------------------------------
x = torch.arange(12)
print("arange", x.dtype, x.shape, x.numel())
X = x.reshape(3, -1)
print("reshape", tuple(X.shape), X[-1].tolist(), X[1:3].sum().item())
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
Xf = X.float()
print("cat", tuple(torch.cat((Xf, Y), dim=0).shape), tuple(torch.cat((Xf, Y), dim=1).shape))
print("eq", (Xf == Y).sum().item(), "sum", Xf.sum().item())
a = torch.arange(3).reshape((3, 1))
b = torch.arange(2).reshape((1, 2))
print("broadcast", (a + b).tolist())
before = id(Y)
Y = Y + Xf
print("new id", id(Y) == before)
Z = torch.zeros_like(Y)
zid = id(Z)
Z[:] = Xf + Y
print("in place id", id(Z) == zid)
A = Xf.numpy()
B = torch.from_numpy(A)
print("numpy", type(A).__name__, type(B).__name__, A.dtype)
a1 = torch.tensor([3.5])
print("item", a1, a1.item(), float(a1), int(a1))
A = torch.arange(20, dtype=torch.float32).reshape(5, 4)
sum_A = A.sum(axis=1, keepdims=True)
print("keepdims", tuple(sum_A.shape), (A / sum_A)[0].tolist()[:2])
print("cumsum", A.cumsum(axis=0)[-1].tolist())
print("norms", r(torch.norm(torch.tensor([3.0, -4.0]))), torch.abs(torch.tensor([3.0, -4.0])).sum().item(),
      r(torch.norm(torch.ones((4, 9)))))
print("mv mm", torch.mv(A, torch.arange(4, dtype=torch.float32)).tolist(), tuple(torch.mm(A, torch.ones(4, 3)).shape))

x = torch.arange(4.0)
x.requires_grad_(True)
print("grad none", x.grad)
y = 2 * torch.dot(x, x)
y.backward()
print("grad", x.grad.tolist(), bool((x.grad == 4 * x).all()))
x.grad.zero_()
y = x.sum()
y.backward()
print("grad sum", x.grad.tolist())
x.grad.zero_()
y = x * x
y.sum().backward()
print("grad sq", x.grad.tolist())
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print("detach", (x.grad == u).tolist())


def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()
print("control flow", bool(a.grad == d / a))


# ---- 3.2 linear regression from scratch -------------------------------------------------------------------
def synthetic_data(w, b, num_examples):
    """Generate y = Xw + b + noise."""
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 1000)
print("features", tuple(features.shape), tuple(labels.shape), r(features[0][0]), r(labels[0][0]))


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]


batch_size = 10
for Xb, yb in data_iter(batch_size, features, labels):
    print("first batch", tuple(Xb.shape), tuple(yb.shape), Xb.dtype)
    break

w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


lr, num_epochs = 0.03, 3
net, loss = linreg, squared_loss
for epoch in range(num_epochs):
    for Xb, yb in data_iter(batch_size, features, labels):
        l = loss(net(Xb, w, b), yb)
        l.sum().backward()
        sgd([w, b], lr, batch_size)
    with torch.no_grad():
        train_l = loss(net(features, w, b), labels)
        print(f'epoch {epoch + 1}, loss {float(train_l.mean()):f}')
print("w error", r((true_w - w.reshape(true_w.shape)).abs().max(), 2) < 1e-2, "b error",
      abs(true_b - b.item()) < 1e-2, w.grad.abs().sum().item(), w.is_leaf)


# ---- 3.3 concise linear regression ---------------------------------------------------------------------------
def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


data_iter2 = load_array((features, labels), batch_size)
print("next", type(next(iter(data_iter2))).__name__, len(next(iter(data_iter2))))
net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
for epoch in range(3):
    for Xb, yb in data_iter2:
        l = loss(net(Xb), yb)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f'concise epoch {epoch + 1}, loss {r(l, 3)}')
w = net[0].weight.data
print("concise w", tuple(w.shape), bool((true_w - w.reshape(true_w.shape)).abs().max() < 0.01),
      type(net[0].bias.data).__name__)
huber = nn.HuberLoss()
print("huber", r(huber(net(features), labels)))


# ---- 3.6 softmax regression from scratch -------------------------------------------------------------------
def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition


Xs = torch.normal(0, 1, (2, 5))
X_prob = softmax(Xs)
print("softmax rows", [r(v, 4) for v in X_prob.sum(1).tolist()], tuple(X_prob.shape))
y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print("pick", y_hat[[0, 1], y].tolist())


def cross_entropy(y_hat, y):
    return - torch.log(y_hat[range(len(y_hat)), y])


print("ce", [r(v, 4) for v in cross_entropy(y_hat, y).tolist()])


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


print("accuracy", accuracy(y_hat, y) / len(y))


class Accumulator:
    """For accumulating sums over n variables."""

    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def reset(self):
        self.data = [0.0] * len(self.data)

    def __getitem__(self, idx):
        return self.data[idx]


def fake_fashion(n, seed):
    centers = torch.randn(10, 1, 8, 8, generator=torch.Generator().manual_seed(0))
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 10, (n,), generator=g)
    images = centers[labels] + 0.8 * torch.randn(n, 1, 8, 8, generator=g)
    return data.TensorDataset(images, labels)


train_iter = data.DataLoader(fake_fashion(256, 1), batch_size=32, shuffle=True)
test_iter = data.DataLoader(fake_fashion(128, 2), batch_size=64, shuffle=False)
num_inputs, num_outputs = 64, 10
W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)


def net_softmax(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)


def evaluate_accuracy(net, data_iter):
    if isinstance(net, torch.nn.Module):
        net.eval()
    metric = Accumulator(2)
    with torch.no_grad():
        for X, y in data_iter:
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]


print("init acc", r(evaluate_accuracy(net_softmax, test_iter), 4))


def train_epoch_ch3(net, train_iter, loss, updater):
    if isinstance(net, torch.nn.Module):
        net.train()
    metric = Accumulator(3)
    for X, y in train_iter:
        y_hat = net(X)
        l = loss(y_hat, y)
        if isinstance(updater, torch.optim.Optimizer):
            updater.zero_grad()
            l.mean().backward()
            updater.step()
        else:
            l.sum().backward()
            updater(X.shape[0])
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    return metric[0] / metric[2], metric[1] / metric[2]


def train_ch3(net, train_iter, test_iter, loss, num_epochs, updater, tag):
    for epoch in range(num_epochs):
        train_metrics = train_epoch_ch3(net, train_iter, loss, updater)
        test_acc = evaluate_accuracy(net, test_iter)
        print(tag, epoch + 1, r(train_metrics[0], 4), r(train_metrics[1], 4), r(test_acc, 4))
    return train_metrics


lr = 0.1


def updater(batch_size):
    return sgd([W, b], lr, batch_size)


train_ch3(net_softmax, train_iter, test_iter, cross_entropy, 3, updater, "scratch softmax")


def predict_ch3(net, test_iter, n=6):
    for X, y in test_iter:
        break
    preds = net(X).argmax(axis=1)
    return y[:n].tolist(), preds[:n].tolist()


print("predict", predict_ch3(net_softmax, test_iter))

# ---- 3.7 concise softmax -----------------------------------------------------------------------------------
net = nn.Sequential(nn.Flatten(), nn.Linear(64, 10))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)
loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=0.1)
train_ch3(net, train_iter, test_iter, loss, 3, trainer, "concise softmax")

# ---- 4.2 MLP from scratch ---------------------------------------------------------------------------------
num_inputs, num_outputs, num_hiddens = 64, 10, 32
W1 = nn.Parameter(torch.randn(num_inputs, num_hiddens, requires_grad=True) * 0.01)
b1 = nn.Parameter(torch.zeros(num_hiddens, requires_grad=True))
W2 = nn.Parameter(torch.randn(num_hiddens, num_outputs, requires_grad=True) * 0.01)
b2 = nn.Parameter(torch.zeros(num_outputs, requires_grad=True))
params = [W1, b1, W2, b2]


def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)


def net_mlp(X):
    X = X.reshape((-1, num_inputs))
    H = relu(X @ W1 + b1)
    return (H @ W2 + b2)


loss = nn.CrossEntropyLoss(reduction='none')
updater = torch.optim.SGD(params, lr=0.5)
train_ch3(net_mlp, train_iter, test_iter, loss, 3, updater, "mlp scratch")
print("param types", type(W1).__name__, W1.is_leaf, W1.requires_grad)


# ---- 4.6 dropout from scratch -----------------------------------------------------------------------------
def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    if dropout == 0:
        return X
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)


Xd = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print("dropout 0", dropout_layer(Xd, 0.).tolist()[0][:3])
d5 = dropout_layer(Xd, 0.5)
print("dropout .5", tuple(d5.shape), d5.dtype, sorted(set(v for v in (d5 / (Xd * 2 + (Xd == 0))).flatten().tolist())))
print("dropout 1", dropout_layer(Xd, 1.).sum().item())


class Net(nn.Module):
    def __init__(self, num_inputs, num_outputs, num_hiddens1, num_hiddens2, is_training=True):
        super(Net, self).__init__()
        self.num_inputs = num_inputs
        self.training = is_training
        self.lin1 = nn.Linear(num_inputs, num_hiddens1)
        self.lin2 = nn.Linear(num_hiddens1, num_hiddens2)
        self.lin3 = nn.Linear(num_hiddens2, num_outputs)
        self.relu = nn.ReLU()

    def forward(self, X):
        H1 = self.relu(self.lin1(X.reshape((-1, self.num_inputs))))
        if self.training == True:
            H1 = dropout_layer(H1, 0.2)
        H2 = self.relu(self.lin2(H1))
        if self.training == True:
            H2 = dropout_layer(H2, 0.5)
        out = self.lin3(H2)
        return out


net = Net(64, 10, 32, 32)
loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
train_ch3(net, train_iter, test_iter, loss, 2, trainer, "dropout scratch")
net = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 32), nn.ReLU(),
                    nn.Dropout(0.5), nn.Linear(32, 10))
net.apply(init_weights)
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
train_ch3(net, train_iter, test_iter, loss, 2, trainer, "dropout concise")
print(net)


# ---- 4.5 weight decay ---------------------------------------------------------------------------------------
n_train, n_test, num_inputs, batch_size = 20, 100, 200, 5
true_w, true_b = torch.ones((num_inputs, 1)) * 0.01, 0.05
train_data = synthetic_data(true_w.reshape(-1), true_b, n_train)
wd_iter = load_array(train_data, batch_size)
test_data = synthetic_data(true_w.reshape(-1), true_b, n_test)
wd_test = load_array(test_data, batch_size, is_train=False)


def init_params():
    w = torch.normal(0, 1, size=(num_inputs, 1), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    return [w, b]


def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2


def evaluate_loss(net, data_iter, loss):
    metric = Accumulator(2)
    for X, y in data_iter:
        out = net(X)
        y = y.reshape(out.shape)
        l = loss(out, y)
        metric.add(l.sum(), l.numel())
    return metric[0] / metric[1]


def train_wd(lambd):
    w, b = init_params()
    net, loss = lambda X: linreg(X, w, b), squared_loss
    num_epochs, lr = 10, 0.003
    for epoch in range(num_epochs):
        for X, y in wd_iter:
            l = loss(net(X), y) + lambd * l2_penalty(w)
            l.sum().backward()
            sgd([w, b], lr, batch_size)
    print("wd", lambd, "w L2", r(torch.norm(w).item()), "test", r(evaluate_loss(net, wd_test, loss)))


train_wd(0)
train_wd(3)


def train_concise(wd):
    net = nn.Sequential(nn.Linear(num_inputs, 1))
    for param in net.parameters():
        param.data.normal_()
    loss = nn.MSELoss(reduction='none')
    num_epochs, lr = 10, 0.003
    trainer = torch.optim.SGD([
        {"params": net[0].weight, 'weight_decay': wd},
        {"params": net[0].bias}], lr=lr)
    for epoch in range(num_epochs):
        for X, y in wd_iter:
            trainer.zero_grad()
            l = loss(net(X), y)
            l.mean().backward()
            trainer.step()
    print("wd concise", wd, r(net[0].weight.norm().item()), r(evaluate_loss(net, wd_test, loss)),
          [g['weight_decay'] for g in trainer.param_groups])


train_concise(0)
train_concise(3)

# ---- 4.8 numerical stability and initialization ------------------------------------------------------------
x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
y = torch.relu(x)
y.backward(torch.ones_like(x), retain_graph=True)
print("relu grad", x.grad[78:82].tolist(), x.grad.sum().item(), x[79].item(), x[80].item())
x.grad.data.zero_()
y = torch.sigmoid(x)
y.backward(torch.ones_like(x))
print("sigmoid grad max", r(x.grad.max()), r(x.grad[0], 4), len(x))
M = torch.normal(0, 1, size=(4, 4))
for i in range(100):
    M = torch.mm(M, torch.normal(0, 1, size=(4, 4)))
print("exploding", f"{M.abs().max().item():.3e}"[-3:], torch.isfinite(M).all().item())
lin = nn.Linear(300, 100)
nn.init.xavier_uniform_(lin.weight)
bound = math.sqrt(6 / (300 + 100))
print("xavier", bool(lin.weight.abs().max() <= bound), r(lin.weight.std(), 2))
nn.init.xavier_normal_(lin.weight)
nn.init.constant_(lin.bias, 0.5)
print("xavier normal", r(lin.weight.std(), 2), lin.bias[:2].tolist())
nn.init.kaiming_uniform_(lin.weight, a=math.sqrt(5))
print("kaiming", bool(lin.weight.abs().max() <= 1 / math.sqrt(300) + 1e-6))


# ---- 6.x builders' guide: custom layers, parameter management, save/load -----------------------------------
class CenteredLayer(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, X):
        return X - X.mean()


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


layer = CenteredLayer()
print("centered", layer(torch.tensor([1.0, 2, 3, 4, 5])).tolist())
net = nn.Sequential(nn.Linear(8, 128), CenteredLayer())
Y = net(torch.rand(4, 8))
print("centered mean small", bool(Y.mean().abs() < 1e-6))
linear = MyLinear(5, 3)
print("mylinear", tuple(linear.weight.shape), tuple(linear(torch.rand(2, 5)).shape))
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
print("lazy before", type(net[0].weight).__name__)
X = torch.rand(size=(2, 4))
net(X)
print("lazy after", tuple(net[0].weight.shape), type(net[0].weight).__name__, type(net[0]).__name__)
print("state", list(net[2].state_dict().keys()), type(net[2].bias).__name__)
print("named", [(name, tuple(param.shape)) for name, param in net.named_parameters()])
shared = nn.Linear(8, 8)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(), nn.Linear(8, 1))
net(X)
net[2].weight.data[0, 0] = 100
print("shared", (net[2].weight.data[0] == net[4].weight.data[0]).all().item(), len(list(net.parameters())))


def init_42(m):
    if type(m) == nn.Linear:
        nn.init.uniform_(m.weight, -10, 10)
        m.weight.data *= m.weight.data.abs() >= 5


net.apply(init_42)
print("init_42 zeros", bool(((net[0].weight == 0) | (net[0].weight.abs() >= 5)).all()))
import io
buf = io.BytesIO()
torch.save({'x': torch.arange(4), 'y': torch.zeros(4)}, buf)
buf.seek(0)
mydict2 = torch.load(buf)
print("save dict", sorted(mydict2), mydict2['x'].tolist())
clone = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(), nn.Linear(8, 1))
buf = io.BytesIO()
torch.save(net.state_dict(), buf)
buf.seek(0)
clone.load_state_dict(torch.load(buf))
clone.eval()
print("clone equal", (clone(X) == net(X)).all().item(), len(clone.state_dict()))
print("final", r(np.float64(net(X).sum().item()), 4))
