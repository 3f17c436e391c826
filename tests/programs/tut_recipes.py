"""PyTorch Recipes: what is a state_dict (model and optimizer), saving/loading several models and
warmstarting with strict=False, zeroing gradients, automatic mixed precision on CPU (autocast bfloat16),
reproducibility, torch.compile's introduction, tensor printing options, and changing the default dtype."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = Net()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
print("Model's state_dict:")
for param_tensor in net.state_dict():
    print(param_tensor, "\t", net.state_dict()[param_tensor].size())
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])
x = torch.randn(4, 3, 32, 32)
y = torch.randint(0, 10, (4,))
for _ in range(2):
    optimizer.zero_grad()
    loss = F.cross_entropy(net(x), y)
    loss.backward()
    optimizer.step()
sd = optimizer.state_dict()
print(list(sd["state"].keys()), list(sd["state"][0].keys()), sd["state"][0]["momentum_buffer"].shape)
print(f"{loss.item():.4f}")

netA, netB = Net(), Net()
optimizerA = optim.SGD(netA.parameters(), lr=0.001, momentum=0.9)
optimizerB = optim.Adam(netB.parameters(), lr=0.001)
buf = io.BytesIO()
torch.save({'modelA_state_dict': netA.state_dict(), 'modelB_state_dict': netB.state_dict(),
            'optimizerA_state_dict': optimizerA.state_dict(), 'optimizerB_state_dict': optimizerB.state_dict()}, buf)
buf.seek(0)
checkpoint = torch.load(buf)
modelA, modelB = Net(), Net()
modelA.load_state_dict(checkpoint['modelA_state_dict'])
modelB.load_state_dict(checkpoint['modelB_state_dict'])
oA = optim.SGD(modelA.parameters(), lr=0.1)
oA.load_state_dict(checkpoint['optimizerA_state_dict'])
print(oA.param_groups[0]["lr"], oA.param_groups[0]["momentum"], modelA.eval().training)


class NetB(nn.Module):
    def __init__(self):
        super(NetB, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
        self.fc4 = nn.Linear(10, 3)


netB = NetB()
result = netB.load_state_dict(netA.state_dict(), strict=False)
print(result)
print(result.missing_keys, result.unexpected_keys)
try:
    netB.load_state_dict(netA.state_dict())
except RuntimeError as e:
    print(str(e).splitlines()[0])
sd = netA.state_dict()
sd["fc1.weight"] = torch.zeros(3, 3)
try:
    netA.load_state_dict(sd)
except RuntimeError as e:
    print(str(e).splitlines()[1].strip())

# zeroing gradients
net = Net()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
for epoch in range(2):
    running_loss = 0.0
    for i in range(4):
        inputs = torch.randn(8, 3, 32, 32)
        labels = torch.randint(0, 10, (8,))
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = F.cross_entropy(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    print('[%d] loss: %.3f' % (epoch + 1, running_loss / 4))
print(net.fc3.weight.grad is not None)
optimizer.zero_grad(set_to_none=False)
print(net.fc3.weight.grad.abs().sum())
optimizer.zero_grad()
print(net.fc3.weight.grad)

# AMP on CPU
model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 8))
opt = optim.SGD(model.parameters(), lr=0.01)
data = torch.randn(32, 64)
target = torch.randn(32, 8)
scaler = torch.amp.GradScaler("cpu", enabled=False)
for epoch in range(3):
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        output = model(data)
        assert output.dtype is torch.bfloat16
        loss = nn.MSELoss()(output, target)
        assert loss.dtype is torch.float32
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad(set_to_none=True)
    print(epoch, f"{loss.item():.2f}", output.dtype, loss.dtype)
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    a = torch.randn(4, 4)
    print(torch.mm(a, a).dtype, (a + a).dtype, torch.softmax(a, 0).dtype, torch.is_autocast_enabled("cpu"))
    with torch.autocast(device_type="cpu", enabled=False):
        print(torch.mm(a, a).dtype)
print(scaler.get_scale(), scaler.is_enabled())

# reproducibility
torch.manual_seed(0)
torch.use_deterministic_algorithms(True)
print(torch.are_deterministic_algorithms_enabled(), torch.rand(2))
torch.use_deterministic_algorithms(False)
g = torch.Generator()
g.manual_seed(0)
print(torch.randperm(5, generator=g), g.initial_seed())
state = torch.get_rng_state()
a = torch.rand(3)
torch.set_rng_state(state)
print(torch.equal(a, torch.rand(3)))


# torch.compile introduction
def foo(x, y):
    a = torch.sin(x)
    b = torch.cos(y)
    return a + b


opt_foo1 = torch.compile(foo)
print(opt_foo1(torch.ones(3, 3), torch.ones(3, 3)))


@torch.compile
def opt_foo2(x, y):
    a = torch.sin(x)
    b = torch.cos(y)
    return a + b


print(opt_foo2(torch.zeros(2, 2), torch.ones(2, 2)))


class MyModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(100, 10)

    def forward(self, x):
        return torch.nn.functional.relu(self.lin(x))


mod = MyModule()
opt_mod = torch.compile(mod)
t = torch.randn(10, 100)
print(torch.allclose(opt_mod(t), mod(t), atol=1e-6), type(opt_mod).__name__, opt_mod._orig_mod is mod)


def bar(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


opt_bar = torch.compile(bar)
inp1, inp2 = torch.ones(10), torch.ones(10)
print(opt_bar(inp1, inp2)[:3], opt_bar(inp1, -inp2)[:3])

# printing and dtypes
torch.set_printoptions(precision=2, sci_mode=False)
print(torch.tensor([1e-5, 123.456, 1e6]))
torch.set_printoptions(profile="default")
print(torch.tensor([1e-5, 123.456, 1e6]), torch.tensor([1.5, 2.25]), torch.arange(1200).float())
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.2, 3]).dtype, torch.tensor([1.2, 3j]).dtype, torch.get_default_dtype())
torch.set_default_dtype(torch.float32)
print(torch.tensor([1.2, 3]).dtype, torch.tensor([1.2, 3j]).dtype)
