"""Dive into Deep Learning (d2l.ai) 1.0's object-oriented API re-created in its own style (own code, synthetic
data, no d2l package): HyperParameters.save_hyperparameters reading the caller's frame through inspect,
@add_to_class methods, Module/DataModule/Trainer with backward() and the optimizer step inside torch.no_grad(),
gradient clipping by the global norm, LinearRegressionScratch with a hand-written SGD, the concise LazyLinear
model, a Classifier with accuracy, and RNNScratch with nn.Parameter weights. Prints one fact per line."""
import inspect
import torch
from torch import nn
from torch.nn import functional as F
torch.manual_seed(0)
def add_to_class(Class):
    def wrapper(obj):
        setattr(Class, obj.__name__, obj)
    return wrapper
class HyperParameters:
    def save_hyperparameters(self, ignore=[]):
        frame = inspect.currentframe().f_back
        _, _, _, local_vars = inspect.getargvalues(frame)
        self.hparams = {k: v for k, v in local_vars.items()
                        if k not in set(ignore + ['self']) and not k.startswith('_')}
        for k, v in self.hparams.items():
            setattr(self, k, v)
class Module(nn.Module, HyperParameters):
    def __init__(self, plot_train_per_epoch=2, plot_valid_per_epoch=1):
        super().__init__()
        self.save_hyperparameters()
    def loss(self, y_hat, y):
        raise NotImplementedError
    def forward(self, X):
        assert hasattr(self, 'net'), 'Neural network is defined'
        return self.net(X)
    def training_step(self, batch):
        return self.loss(self(*batch[:-1]), batch[-1])
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), self.lr)
    def apply_init(self, inputs, init=None):
        self.forward(*inputs)
        if init is not None:
            self.net.apply(init)
class DataModule(HyperParameters):
    def __init__(self, root='../data', num_workers=4):
        self.save_hyperparameters()
    def get_tensorloader(self, tensors, train, indices=slice(0, None)):
        tensors = tuple(a[indices] for a in tensors)
        dataset = torch.utils.data.TensorDataset(*tensors)
        return torch.utils.data.DataLoader(dataset, self.batch_size, shuffle=train)
class SyntheticRegressionData(DataModule):
    def __init__(self, w, b, noise=0.01, num_train=1000, num_val=1000, batch_size=32):
        super().__init__()
        self.save_hyperparameters()
        n = num_train + num_val
        self.X = torch.randn(n, len(w))
        noise = torch.randn(n, 1) * noise
        self.y = torch.matmul(self.X, w.reshape((-1, 1))) + b + noise
    def get_dataloader(self, train):
        i = slice(0, self.num_train) if train else slice(self.num_train, None)
        return self.get_tensorloader((self.X, self.y), train, i)
class Trainer(HyperParameters):
    def __init__(self, max_epochs, num_gpus=0, gradient_clip_val=0):
        self.save_hyperparameters()
    def prepare_data(self, data):
        self.train_dataloader = data.get_dataloader(True)
        self.val_dataloader = data.get_dataloader(False)
        self.num_train_batches = len(self.train_dataloader)
        self.num_val_batches = (len(self.val_dataloader) if self.val_dataloader is not None else 0)
    def fit(self, model, data):
        self.prepare_data(data)
        model.trainer = self
        self.optim = model.configure_optimizers()
        self.epoch = 0
        self.train_batch_idx = 0
        self.val_batch_idx = 0
        for self.epoch in range(self.max_epochs):
            self.fit_epoch()
    def prepare_batch(self, batch):
        return batch
    def fit_epoch(self):
        self.model = model
        self.model.train()
        for batch in self.train_dataloader:
            loss = self.model.training_step(self.prepare_batch(batch))
            self.optim.zero_grad()
            with torch.no_grad():
                loss.backward()
                if self.gradient_clip_val > 0:
                    self.clip_gradients(self.gradient_clip_val, self.model)
                self.optim.step()
            self.train_batch_idx += 1
        self.model.eval()
        vl = []
        for batch in self.val_dataloader:
            with torch.no_grad():
                vl.append(float(self.model.loss(self.model(*batch[:-1]), batch[-1])))
            self.val_batch_idx += 1
        print("epoch", self.epoch, round(sum(vl) / len(vl), 6))
    def clip_gradients(self, grad_clip_val, model):
        params = [p for p in model.parameters() if p.requires_grad]
        norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
        if norm > grad_clip_val:
            for param in params:
                param.grad[:] *= grad_clip_val / norm
class LinearRegressionScratch(Module):
    def __init__(self, num_inputs, lr, sigma=0.01):
        super().__init__()
        self.save_hyperparameters()
        self.w = torch.normal(0, sigma, (num_inputs, 1), requires_grad=True)
        self.b = torch.zeros(1, requires_grad=True)
@add_to_class(LinearRegressionScratch)
def forward(self, X):
    return torch.matmul(X, self.w) + self.b
@add_to_class(LinearRegressionScratch)
def loss(self, y_hat, y):
    l = (y_hat - y) ** 2 / 2
    return l.mean()
class SGD(HyperParameters):
    def __init__(self, params, lr):
        self.save_hyperparameters()
    def step(self):
        for param in self.params:
            param -= self.lr * param.grad
    def zero_grad(self):
        for param in self.params:
            if param.grad is not None:
                param.grad.zero_()
@add_to_class(LinearRegressionScratch)
def configure_optimizers(self):
    return SGD([self.w, self.b], self.lr)
model = LinearRegressionScratch(2, lr=0.03)
print(sorted(model.hparams), model.plot_train_per_epoch)
data = SyntheticRegressionData(w=torch.tensor([2, -3.4]), b=4.2)
print(sorted(data.hparams), data.num_workers, len(data.get_dataloader(True)))
trainer = Trainer(max_epochs=3)
trainer.fit(model, data)
with torch.no_grad():
    print(f'error in estimating w: {data.w - model.w.reshape(data.w.shape)}')
    print(f'error in estimating b: {data.b - model.b}')
class LinearRegression(Module):
    def __init__(self, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.LazyLinear(1)
        self.net.weight.data.normal_(0, 0.01)
        self.net.bias.data.fill_(0)
    def loss(self, y_hat, y):
        fn = nn.MSELoss()
        return fn(y_hat, y)
    def get_w_b(self):
        return (self.net.weight.data, self.net.bias.data)
model = LinearRegression(lr=0.03)
trainer = Trainer(max_epochs=3, gradient_clip_val=1)
trainer.fit(model, data)
w, b = model.get_w_b()
print(w, b)
print(model)
class RNNScratch(Module):
    def __init__(self, num_inputs, num_hiddens, sigma=0.01):
        super().__init__()
        self.save_hyperparameters()
        self.W_xh = nn.Parameter(torch.randn(num_inputs, num_hiddens) * sigma)
        self.W_hh = nn.Parameter(torch.randn(num_hiddens, num_hiddens) * sigma)
        self.b_h = nn.Parameter(torch.zeros(num_hiddens))
    def forward(self, inputs, state=None):
        if state is None:
            state = torch.zeros((inputs.shape[1], self.num_hiddens), device=inputs.device)
        else:
            state, = state
        outputs = []
        for X in inputs:
            state = torch.tanh(torch.matmul(X, self.W_xh) + torch.matmul(state, self.W_hh) + self.b_h)
            outputs.append(state)
        return outputs, state
rnn = RNNScratch(16, 32)
X = torch.ones((100, 2, 16))
outputs, state = rnn(X)
print(len(outputs), outputs[0].shape, state.shape, torch.stack(outputs, 1).shape)
print(rnn.hparams.keys())


class Classifier(Module):
    def validation_step(self, batch):
        Y_hat = self(*batch[:-1])
        return self.loss(Y_hat, batch[-1]), self.accuracy(Y_hat, batch[-1])

    def accuracy(self, Y_hat, Y, averaged=True):
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        preds = Y_hat.argmax(axis=1).type(Y.dtype)
        compare = (preds == Y.reshape(-1)).type(torch.float32)
        return compare.mean() if averaged else compare

    def loss(self, Y_hat, Y, averaged=True):
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        Y = Y.reshape((-1,))
        return F.cross_entropy(Y_hat, Y, reduction='mean' if averaged else 'none')


class SoftmaxRegression(Classifier):
    def __init__(self, num_outputs, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Flatten(), nn.LazyLinear(num_outputs))

    def forward(self, X):
        return self.net(X)


class FakeFashion(DataModule):
    def __init__(self, batch_size=32):
        super().__init__()
        self.save_hyperparameters()
        g = torch.Generator().manual_seed(4)
        centers = torch.randn(10, 1, 6, 6, generator=g)
        y = torch.randint(0, 10, (400,), generator=g)
        self.X = centers[y] + torch.randn(400, 1, 6, 6, generator=g)
        self.y = y
        self.num_train = 300

    def get_dataloader(self, train):
        i = slice(0, self.num_train) if train else slice(self.num_train, None)
        return self.get_tensorloader((self.X, self.y), train, i)


data = FakeFashion()
model = SoftmaxRegression(num_outputs=10, lr=0.1)
trainer = Trainer(max_epochs=3)
trainer.fit(model, data)
X, y = next(iter(data.get_dataloader(False)))
val_loss, acc = model.validation_step((X, y))
print("classifier", round(float(val_loss), 4), round(float(acc), 4), model.accuracy(model(X), y, averaged=False).shape)
print("hparams", sorted(model.hparams), sorted(trainer.hparams), trainer.num_train_batches, trainer.num_val_batches)
