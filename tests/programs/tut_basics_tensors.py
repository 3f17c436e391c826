"""Learn the Basics / Introduction to PyTorch tutorials: tensor creation, attributes, indexing, joining,
arithmetic, in-place ops, the numpy bridge, broadcasting, dtype printing, Build the Model (module repr,
named parameters), Automatic Differentiation, Optimization loop, Save and Load (state_dict through a
BytesIO), and the Autograd/Modules tutorials' printing of tensors with grad_fn."""
import io
import math

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(1729)

data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
np_array = np.array(data)
x_np = torch.from_numpy(np_array)
x_ones = torch.ones_like(x_data)
print(f"Ones Tensor: \n {x_ones} \n")
x_rand = torch.rand_like(x_data, dtype=torch.float)
print(f"Random Tensor: \n {x_rand} \n")
shape = (2, 3,)
print(torch.rand(shape), torch.ones(shape), torch.zeros(shape), sep="\n")
tensor = torch.rand(3, 4)
print(f"Shape of tensor: {tensor.shape}\nDatatype of tensor: {tensor.dtype}\nDevice tensor is stored on: {tensor.device}")
tensor = torch.ones(4, 4)
print(f"First row: {tensor[0]}\nFirst column: {tensor[:, 0]}\nLast column: {tensor[..., -1]}")
tensor[:, 1] = 0
print(tensor)
t1 = torch.cat([tensor, tensor, tensor], dim=1)
print(t1)
y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.rand_like(y1)
torch.matmul(tensor, tensor.T, out=y3)
z1 = tensor * tensor
z3 = torch.rand_like(tensor)
torch.mul(tensor, tensor, out=z3)
print(y1, y3, z3, sep="\n")
agg = tensor.sum()
agg_item = agg.item()
print(agg_item, type(agg_item))
print(f"{tensor} \n")
tensor.add_(5)
print(tensor)
# the tutorial's "Bridge with NumPy": the tensor and the array share memory both ways
t = torch.ones(5)
print(f"t: {t}")
n = t.numpy()
print(f"n: {n}", n.dtype)
t.add_(1)
print(f"t: {t}")
print(f"n: {n}")
n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
print(f"t: {t}")
print(f"n: {n}")

# Introduction to PyTorch - tensors
x = torch.zeros(5, 3)
print(x, x.dtype)
x = torch.ones((5, 3), dtype=torch.int16)
print(x)
torch.manual_seed(1729)
r1 = torch.rand(2, 2)
print('A random tensor:', r1)
r2 = torch.rand(2, 2)
print('A different random tensor:', r2)
torch.manual_seed(1729)
r3 = torch.rand(2, 2)
print('Should match r1:', r3, torch.equal(r1, r3))
ones = torch.ones(2, 3)
twos = torch.ones(2, 3) * 2
threes = ones + twos
print(threes, threes.shape)
r = (torch.rand(2, 2) - 0.5) * 2
print('A random matrix, r:', r)
print('Absolute value of r:', torch.abs(r))
print('Inverse sine of r:', torch.asin(r))
print('Determinant of r:', torch.det(r))
print('Singular value decomposition of r:', torch.svd(r))
print('Average and standard deviation of r:', torch.std_mean(r))
print('Maximum value of r:', torch.max(r))
print(torch.tensor(3.14159), torch.tensor([[1, 2], [3, 4]]), torch.tensor(((2, 4, 6), [3, 6, 9])))
a = torch.ones((2, 3), dtype=torch.int16)
print(a)
b = torch.rand((2, 3), dtype=torch.float64) * 20.
print(b)
c = b.to(torch.int32)
print(c)
powers2 = torch.tensor([[2, 4], [8, 16]])
print(powers2 ** 2, torch.tensor([[1., 2.], [3., 4.]]) / torch.tensor([[2., 2.], [2., 2.]]))
rand = torch.rand(2, 4)
doubled = rand * (torch.ones(1, 4) * 2)
print(rand, doubled, sep="\n")
a = torch.ones(4, 3, 2)
b = a * torch.rand(3, 2)
c = a * torch.rand(3, 1)
d = a * torch.rand(1, 2)
print(b.shape, c[0], d[0], sep="\n")
try:
    a * torch.rand(4, 3)
except RuntimeError as e:
    print("RuntimeError:", e)
a = torch.rand(2, 4) * 2 - 1
print(torch.ceil(a), torch.floor(a), torch.clamp(a, -0.5, 0.5), sep="\n")
angles = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
sines = torch.sin(angles)
inverses = torch.asin(sines)
print(angles, sines, inverses, sep="\n")
b = torch.tensor([1, 5, 11])
c = torch.tensor([2, 7, 10])
print(torch.bitwise_xor(b, c))
d = torch.tensor([[1., 2.], [3., 4.]])
e = torch.ones(1, 2)
print(torch.eq(d, e))
print(torch.max(d), torch.max(d).item(), torch.mean(d), torch.std(d), torch.prod(d), torch.unique(torch.tensor([1, 2, 1, 2, 1, 2])))
v1 = torch.tensor([1., 0., 0.])
v2 = torch.tensor([0., 1., 0.])
m1 = torch.rand(2, 2)
m2 = torch.tensor([[3., 0.], [0., 3.]])
print(torch.linalg.cross(v2, v1), m1, m3 := torch.matmul(m1, m2), torch.linalg.svd(m3), sep="\n")
a = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
print(torch.sin(a), a)
print(torch.sin_(a), a)
a = torch.ones(2, 2)
b = torch.rand(2, 2)
print(a.add_(b), a.mul_(b), sep="\n")
c = torch.zeros(2, 2)
old_id = id(c)
d = torch.matmul(a, b, out=c)
print(c, id(c) == old_id, id(d) == old_id)
torch.rand(2, 2, out=c)
print(c, id(c) == old_id)
a = torch.rand(2, 2, requires_grad=True)
b = a.clone()
print(b)
c = a.detach().clone()
print(c, a)
a = torch.rand(226, 226)
b = a.unsqueeze(0)
print(a.shape, b.shape)
c = torch.rand(1, 1, 1, 1, 1)
print(c, c.squeeze(), torch.rand(1, 20).squeeze(0).shape)
batch_me = torch.rand(3, 226, 226)
batch_me.unsqueeze_(0)
print(batch_me.shape)
output3d = torch.rand(6, 20, 20)
input1d = output3d.reshape(6 * 20 * 20)
print(input1d.shape, torch.reshape(output3d, (6 * 20 * 20,)).shape)
numpy_array = np.ones((2, 3))
pytorch_tensor = torch.from_numpy(numpy_array)
print(pytorch_tensor)
pytorch_rand = torch.rand(2, 3)
numpy_rand = pytorch_rand.numpy()
print(numpy_rand)

# Build the model / autograd / optimization / save-load


class CustomDataset(Dataset):
    def __init__(self, n=96):
        g = torch.Generator().manual_seed(5)
        self.x = torch.rand(n, 28, 28, generator=g)
        self.y = (self.x.mean(dim=(1, 2)) * 20).long() % 10

    def __len__(self):
        return len(self.y)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(nn.Linear(28 * 28, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                                               nn.Linear(64, 10))

    def forward(self, x):
        x = self.flatten(x)
        return self.linear_relu_stack(x)


model = NeuralNetwork()
print(model)
X = torch.rand(1, 28, 28)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")
input_image = torch.rand(3, 28, 28)
flat_image = nn.Flatten()(input_image)
hidden1 = nn.ReLU()(nn.Linear(in_features=28 * 28, out_features=20)(flat_image))
print(flat_image.size(), hidden1.size())
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
x = torch.ones(5)
y = torch.zeros(3)
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {z.grad_fn}".split(" object")[0])
print(f"Gradient function for loss = {loss.grad_fn}".split(" object")[0])
loss.backward()
print(w.grad, b.grad)
z = torch.matmul(x, w) + b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad, torch.matmul(x, w).detach().requires_grad)
inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

train_dataloader = DataLoader(CustomDataset(), batch_size=32, shuffle=True)
test_dataloader = DataLoader(CustomDataset(48), batch_size=32)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-1)


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 2 == 0:
            loss, current = loss.item(), batch * 32 + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100 * correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


for t in range(3):
    print(f"Epoch {t + 1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")

buf = io.BytesIO()
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3}, buf)
buf.seek(0)
ckpt = torch.load(buf, weights_only=True)
model2 = NeuralNetwork()
print(model2.load_state_dict(ckpt["model"]))
print(list(ckpt["model"].keys()), ckpt["optimizer"]["param_groups"], ckpt["epoch"])
print(all(torch.equal(a, b) for a, b in zip(model.parameters(), model2.parameters())))
buf = io.BytesIO()
torch.save(model, buf)
buf.seek(0)
m3 = torch.load(buf, weights_only=False)
print(type(m3).__name__, m3(X[:1]).shape)
