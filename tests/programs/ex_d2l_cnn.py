"""Dive into Deep Learning (d2l.ai, PyTorch edition), chapters 7-8 (convolutional networks and modern CNNs) in
its own style (own code, synthetic data, tiny sizes, no d2l package): corr2d from scratch and a learned edge
kernel, padding/stride shape arithmetic, multi-channel corr2d_multi_in_out and 1x1 convolutions as matmul, pool2d
from scratch, LeNet with a layer-by-layer shape walk, AlexNet/VGG/NiN blocks, a GoogLeNet Inception block,
batch normalization from scratch (moving mean/var, torch.is_grad_enabled()), ResNet's Residual, DenseNet's
dense and transition blocks, each trained a few steps with d2l's train_ch6 (xavier init, SGD, Accumulator).
Prints one fact per line."""
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils import data

torch.manual_seed(0)


def r(x, n=5):
    return float(f"{float(x):.{n}g}")


# ---- 7.2 convolutions for images ---------------------------------------------------------------------------
def corr2d(X, K):
    """Compute 2D cross-correlation."""
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y


X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
K = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
print("corr2d", corr2d(X, K).tolist())


class Conv2D(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(kernel_size))
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        return corr2d(x, self.weight) + self.bias


X = torch.ones((6, 8))
X[:, 2:6] = 0
K = torch.tensor([[1.0, -1.0]])
Y = corr2d(X, K)
print("edge", Y[0].tolist(), corr2d(X.t(), K).abs().sum().item())
custom = Conv2D((1, 2))
print("custom conv", tuple(custom(X).shape))
conv2d = nn.LazyConv2d(1, kernel_size=(1, 2), bias=False)
X = X.reshape((1, 1, 6, 8))
Y = Y.reshape((1, 1, 6, 7))
lr = 3e-2
for i in range(10):
    Y_hat = conv2d(X)
    l = (Y_hat - Y) ** 2
    conv2d.zero_grad()
    l.sum().backward()
    conv2d.weight.data[:] -= lr * conv2d.weight.grad
    if (i + 1) % 2 == 0:
        print(f'epoch {i + 1}, loss {l.sum():.3f}')
print("learned kernel", [r(v, 3) for v in conv2d.weight.data.reshape((1, 2))[0].tolist()])


# ---- 7.3 / 7.4 padding, stride, channels ------------------------------------------------------------------
def comp_conv2d(conv2d, X):
    X = X.reshape((1, 1) + X.shape)
    Y = conv2d(X)
    return Y.reshape(Y.shape[2:])


X = torch.rand(size=(8, 8))
print("pad", tuple(comp_conv2d(nn.LazyConv2d(1, kernel_size=3, padding=1), X).shape),
      tuple(comp_conv2d(nn.LazyConv2d(1, kernel_size=(5, 3), padding=(2, 1)), X).shape),
      tuple(comp_conv2d(nn.LazyConv2d(1, kernel_size=3, padding=1, stride=2), X).shape),
      tuple(comp_conv2d(nn.LazyConv2d(1, kernel_size=(3, 5), padding=(0, 1), stride=(3, 4)), X).shape))


def corr2d_multi_in(X, K):
    return sum(corr2d(x, k) for x, k in zip(X, K))


def corr2d_multi_in_out(X, K):
    return torch.stack([corr2d_multi_in(X, k) for k in K], 0)


X = torch.tensor([[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]],
                  [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]])
K = torch.tensor([[[0.0, 1.0], [2.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]])
print("multi in", corr2d_multi_in(X, K).tolist())
K = torch.stack((K, K + 1, K + 2), 0)
print("multi out", tuple(K.shape), corr2d_multi_in_out(X, K)[2].tolist())


def corr2d_multi_in_out_1x1(X, K):
    c_i, h, w = X.shape
    c_o = K.shape[0]
    X = X.reshape((c_i, h * w))
    K = K.reshape((c_o, c_i))
    Y = torch.matmul(K, X)
    return Y.reshape((c_o, h, w))


X = torch.normal(0, 1, (3, 3, 3))
K = torch.normal(0, 1, (2, 3, 1, 1))
Y1 = corr2d_multi_in_out_1x1(X, K)
Y2 = corr2d_multi_in_out(X, K)
print("1x1", float(torch.abs(Y1 - Y2).sum()) < 1e-6, tuple(Y1.shape))


# ---- 7.5 pooling ---------------------------------------------------------------------------------------------
def pool2d(X, pool_size, mode='max'):
    p_h, p_w = pool_size
    Y = torch.zeros((X.shape[0] - p_h + 1, X.shape[1] - p_w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            if mode == 'max':
                Y[i, j] = X[i: i + p_h, j: j + p_w].max()
            elif mode == 'avg':
                Y[i, j] = X[i: i + p_h, j: j + p_w].mean()
    return Y


X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
print("pool", pool2d(X, (2, 2)).tolist(), pool2d(X, (2, 2), 'avg').tolist())
X = torch.arange(16, dtype=torch.float32).reshape((1, 1, 4, 4))
print("maxpool", nn.MaxPool2d(3)(X).tolist(), nn.MaxPool2d(3, padding=1, stride=2)(X).tolist())
print("maxpool hw", nn.MaxPool2d((2, 3), stride=(2, 3), padding=(0, 1))(X).tolist())
X = torch.cat((X, X + 1), 1)
print("pool channels", tuple(nn.MaxPool2d(3, padding=1, stride=2)(X).shape))


# ---- data and train_ch6 ------------------------------------------------------------------------------------
class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


def fake_images(n, seed, size=28, channels=1):
    centers = torch.randn(10, channels, size, size, generator=torch.Generator().manual_seed(0))
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 10, (n,), generator=g)
    images = centers[labels] + torch.randn(n, channels, size, size, generator=g)
    return data.TensorDataset(images, labels)


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


def evaluate_accuracy_gpu(net, data_iter, device=None):
    if isinstance(net, nn.Module):
        net.eval()
        if not device:
            device = next(iter(net.parameters())).device
    metric = Accumulator(2)
    with torch.no_grad():
        for X, y in data_iter:
            if isinstance(X, list):
                X = [x.to(device) for x in X]
            else:
                X = X.to(device)
            y = y.to(device)
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]


def try_gpu(i=0):
    if torch.cuda.device_count() >= i + 1:
        return torch.device(f'cuda:{i}')
    return torch.device('cpu')


def train_ch6(net, train_iter, test_iter, num_epochs, lr, device, tag):
    def init_weights(m):
        if type(m) == nn.Linear or type(m) == nn.Conv2d:
            nn.init.xavier_uniform_(m.weight)
    net.apply(init_weights)
    net.to(device)
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    loss = nn.CrossEntropyLoss()
    for epoch in range(num_epochs):
        metric = Accumulator(3)
        net.train()
        for i, (X, y) in enumerate(train_iter):
            optimizer.zero_grad()
            X, y = X.to(device), y.to(device)
            y_hat = net(X)
            l = loss(y_hat, y)
            l.backward()
            optimizer.step()
            with torch.no_grad():
                metric.add(l * X.shape[0], accuracy(y_hat, y), X.shape[0])
        train_l = metric[0] / metric[2]
        train_acc = metric[1] / metric[2]
        test_acc = evaluate_accuracy_gpu(net, test_iter)
        print(f'{tag} epoch {epoch + 1} loss {train_l:.4f}, train acc {train_acc:.3f}, test acc {test_acc:.3f}')


device = try_gpu()
print("device", device, torch.cuda.device_count())
train28 = data.DataLoader(fake_images(64, 1), batch_size=16, shuffle=True)
test28 = data.DataLoader(fake_images(32, 2), batch_size=32)

# ---- 7.6 LeNet -----------------------------------------------------------------------------------------------
net = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Flatten(),
    nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(),
    nn.Linear(120, 84), nn.Sigmoid(),
    nn.Linear(84, 10))
X = torch.rand(size=(1, 1, 28, 28), dtype=torch.float32)
for layer in net:
    X = layer(X)
    print(layer.__class__.__name__, 'output shape: \t', X.shape)
train_ch6(net, train28, test28, 2, 0.9, device, "lenet")

# ---- 8.1 AlexNet (tiny) and 8.2 VGG blocks ---------------------------------------------------------------
alex = nn.Sequential(
    nn.Conv2d(1, 8, kernel_size=5, stride=2, padding=1), nn.ReLU(),
    nn.MaxPool2d(kernel_size=3, stride=2),
    nn.Conv2d(8, 16, kernel_size=3, padding=2), nn.ReLU(),
    nn.MaxPool2d(kernel_size=3, stride=2),
    nn.Conv2d(16, 16, kernel_size=3, padding=1), nn.ReLU(),
    nn.Flatten(),
    nn.LazyLinear(32), nn.ReLU(), nn.Dropout(p=0.5),
    nn.Linear(32, 10))
X = torch.randn(1, 1, 28, 28)
for layer in alex:
    X = layer(X)
print("alexnet out", tuple(X.shape), tuple(alex[9].weight.shape))
train_ch6(alex, train28, test28, 2, 0.05, device, "alexnet")


def vgg_block(num_convs, in_channels, out_channels):
    layers = []
    for _ in range(num_convs):
        layers.append(nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1))
        layers.append(nn.ReLU())
        in_channels = out_channels
    layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
    return nn.Sequential(*layers)


def vgg(conv_arch):
    conv_blks = []
    in_channels = 1
    for (num_convs, out_channels) in conv_arch:
        conv_blks.append(vgg_block(num_convs, in_channels, out_channels))
        in_channels = out_channels
    return nn.Sequential(*conv_blks, nn.Flatten(),
                         nn.Linear(out_channels * 7 * 7, 32), nn.ReLU(), nn.Dropout(0.5),
                         nn.Linear(32, 32), nn.ReLU(), nn.Dropout(0.5),
                         nn.Linear(32, 10))


net = vgg(((1, 4), (2, 8)))
X = torch.randn(size=(1, 1, 28, 28))
for blk in net:
    X = blk(X)
    print(blk.__class__.__name__, 'output shape:\t', X.shape)
train_ch6(net, train28, test28, 1, 0.05, device, "vgg")


# ---- 8.3 NiN -------------------------------------------------------------------------------------------------
def nin_block(in_channels, out_channels, kernel_size, strides, padding):
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, kernel_size, strides, padding), nn.ReLU(),
        nn.Conv2d(out_channels, out_channels, kernel_size=1), nn.ReLU(),
        nn.Conv2d(out_channels, out_channels, kernel_size=1), nn.ReLU())


net = nn.Sequential(
    nin_block(1, 8, kernel_size=5, strides=2, padding=1),
    nn.MaxPool2d(3, stride=2),
    nin_block(8, 16, kernel_size=3, strides=1, padding=1),
    nn.MaxPool2d(3, stride=2),
    nn.Dropout(0.5),
    nin_block(16, 10, kernel_size=3, strides=1, padding=1),
    nn.AdaptiveAvgPool2d((1, 1)),
    nn.Flatten())
X = torch.rand(size=(1, 1, 28, 28))
for layer in net:
    X = layer(X)
    print(layer.__class__.__name__, 'output shape:\t', X.shape)
train_ch6(net, train28, test28, 1, 0.1, device, "nin")


# ---- 8.4 GoogLeNet Inception ---------------------------------------------------------------------------------
class Inception(nn.Module):
    def __init__(self, in_channels, c1, c2, c3, c4, **kwargs):
        super(Inception, self).__init__(**kwargs)
        self.p1_1 = nn.Conv2d(in_channels, c1, kernel_size=1)
        self.p2_1 = nn.Conv2d(in_channels, c2[0], kernel_size=1)
        self.p2_2 = nn.Conv2d(c2[0], c2[1], kernel_size=3, padding=1)
        self.p3_1 = nn.Conv2d(in_channels, c3[0], kernel_size=1)
        self.p3_2 = nn.Conv2d(c3[0], c3[1], kernel_size=5, padding=2)
        self.p4_1 = nn.MaxPool2d(kernel_size=3, stride=1, padding=1)
        self.p4_2 = nn.Conv2d(in_channels, c4, kernel_size=1)

    def forward(self, x):
        p1 = F.relu(self.p1_1(x))
        p2 = F.relu(self.p2_2(F.relu(self.p2_1(x))))
        p3 = F.relu(self.p3_2(F.relu(self.p3_1(x))))
        p4 = F.relu(self.p4_2(self.p4_1(x)))
        return torch.cat((p1, p2, p3, p4), dim=1)


b1 = nn.Sequential(nn.Conv2d(1, 8, kernel_size=7, stride=2, padding=3), nn.ReLU(),
                   nn.MaxPool2d(kernel_size=3, stride=2, padding=1))
b3 = nn.Sequential(Inception(8, 4, (4, 8), (2, 4), 4), Inception(20, 8, (8, 8), (2, 4), 4),
                   nn.MaxPool2d(kernel_size=3, stride=2, padding=1))
net = nn.Sequential(b1, b3, nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(24, 10))
X = torch.rand(size=(1, 1, 28, 28))
for layer in net:
    X = layer(X)
    print(layer.__class__.__name__, 'output shape:\t', X.shape)
train_ch6(net, train28, test28, 1, 0.1, device, "googlenet")
print("inception params", sum(p.numel() for p in b3.parameters()))


# ---- 8.5 batch normalization from scratch -----------------------------------------------------------------
def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = momentum * moving_mean + (1.0 - momentum) * mean
        moving_var = momentum * moving_var + (1.0 - momentum) * var
    Y = gamma * X_hat + beta
    return Y, moving_mean.data, moving_var.data


class BatchNorm(nn.Module):
    def __init__(self, num_features, num_dims):
        super().__init__()
        if num_dims == 2:
            shape = (1, num_features)
        else:
            shape = (1, num_features, 1, 1)
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        self.moving_mean = torch.zeros(shape)
        self.moving_var = torch.ones(shape)

    def forward(self, X):
        if self.moving_mean.device != X.device:
            self.moving_mean = self.moving_mean.to(X.device)
            self.moving_var = self.moving_var.to(X.device)
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean,
            self.moving_var, eps=1e-5, momentum=0.9)
        return Y


net = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=5), BatchNorm(6, num_dims=4), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 16, kernel_size=5), BatchNorm(16, num_dims=4), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
    nn.Linear(16 * 4 * 4, 120), BatchNorm(120, num_dims=2), nn.Sigmoid(),
    nn.Linear(120, 84), BatchNorm(84, num_dims=2), nn.Sigmoid(),
    nn.Linear(84, 10))
train_ch6(net, train28, test28, 2, 1.0, device, "bn scratch")
print("bn gamma", [r(v, 4) for v in net[1].gamma.reshape((-1,))[:3].tolist()],
      "moving_mean", [r(v, 3) for v in net[1].moving_mean.reshape((-1,))[:3].tolist()],
      net[1].moving_mean.requires_grad, net[1].moving_mean.grad_fn)
print("bn state keys", list(net[1].state_dict().keys()))
net = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=5), nn.BatchNorm2d(6), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 16, kernel_size=5), nn.BatchNorm2d(16), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
    nn.Linear(256, 120), nn.BatchNorm1d(120), nn.Sigmoid(),
    nn.Linear(120, 84), nn.BatchNorm1d(84), nn.Sigmoid(),
    nn.Linear(84, 10))
train_ch6(net, train28, test28, 2, 1.0, device, "bn concise")
print("bn concise", [r(v, 3) for v in net[1].running_mean[:3].tolist()], net[1].num_batches_tracked.item(),
      list(net[1].state_dict().keys()))


# ---- 8.6 ResNet ----------------------------------------------------------------------------------------------
class Residual(nn.Module):
    def __init__(self, input_channels, num_channels, use_1x1conv=False, strides=1):
        super().__init__()
        self.conv1 = nn.Conv2d(input_channels, num_channels, kernel_size=3, padding=1, stride=strides)
        self.conv2 = nn.Conv2d(num_channels, num_channels, kernel_size=3, padding=1)
        if use_1x1conv:
            self.conv3 = nn.Conv2d(input_channels, num_channels, kernel_size=1, stride=strides)
        else:
            self.conv3 = None
        self.bn1 = nn.BatchNorm2d(num_channels)
        self.bn2 = nn.BatchNorm2d(num_channels)

    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3:
            X = self.conv3(X)
        Y += X
        return F.relu(Y)


blk = Residual(3, 3)
X = torch.rand(4, 3, 6, 6)
print("residual", tuple(blk(X).shape), tuple(Residual(3, 6, use_1x1conv=True, strides=2)(X).shape))


def resnet_block(input_channels, num_channels, num_residuals, first_block=False):
    blk = []
    for i in range(num_residuals):
        if i == 0 and not first_block:
            blk.append(Residual(input_channels, num_channels, use_1x1conv=True, strides=2))
        else:
            blk.append(Residual(num_channels, num_channels))
    return blk


b1 = nn.Sequential(nn.Conv2d(1, 8, kernel_size=7, stride=2, padding=3),
                   nn.BatchNorm2d(8), nn.ReLU(),
                   nn.MaxPool2d(kernel_size=3, stride=2, padding=1))
b2 = nn.Sequential(*resnet_block(8, 8, 1, first_block=True))
b3 = nn.Sequential(*resnet_block(8, 16, 1))
net = nn.Sequential(b1, b2, b3, nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(16, 10))
X = torch.rand(size=(1, 1, 28, 28))
for layer in net:
    X = layer(X)
    print(layer.__class__.__name__, 'output shape:\t', X.shape)
train_ch6(net, train28, test28, 2, 0.05, device, "resnet")


# ---- 8.7 DenseNet ------------------------------------------------------------------------------------------
def conv_block(input_channels, num_channels):
    return nn.Sequential(
        nn.BatchNorm2d(input_channels), nn.ReLU(),
        nn.Conv2d(input_channels, num_channels, kernel_size=3, padding=1))


class DenseBlock(nn.Module):
    def __init__(self, num_convs, input_channels, num_channels):
        super(DenseBlock, self).__init__()
        layer = []
        for i in range(num_convs):
            layer.append(conv_block(num_channels * i + input_channels, num_channels))
        self.net = nn.Sequential(*layer)

    def forward(self, X):
        for blk in self.net:
            Y = blk(X)
            X = torch.cat((X, Y), dim=1)
        return X


def transition_block(input_channels, num_channels):
    return nn.Sequential(
        nn.BatchNorm2d(input_channels), nn.ReLU(),
        nn.Conv2d(input_channels, num_channels, kernel_size=1),
        nn.AvgPool2d(kernel_size=2, stride=2))


blk = DenseBlock(2, 3, 10)
X = torch.randn(4, 3, 8, 8)
Y = blk(X)
print("dense", tuple(Y.shape), tuple(transition_block(23, 10)(Y).shape))
b1 = nn.Sequential(nn.Conv2d(1, 8, kernel_size=7, stride=2, padding=3), nn.BatchNorm2d(8), nn.ReLU(),
                   nn.MaxPool2d(kernel_size=3, stride=2, padding=1))
net = nn.Sequential(b1, DenseBlock(2, 8, 4), transition_block(16, 8), DenseBlock(2, 8, 4),
                    nn.BatchNorm2d(16), nn.ReLU(), nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(16, 10))
train_ch6(net, train28, test28, 2, 0.1, device, "densenet")
print("densenet params", sum(p.numel() for p in net.parameters()), len(net.state_dict()))
