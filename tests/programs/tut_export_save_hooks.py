"""The 60 Minute Blitz CIFAR-10 classifier (synthetic 32x32 images, SGD with momentum, per-class accuracy),
the Saving and Loading recipes (checkpoints with the optimizer, warmstarting with strict=False, map_location,
whole-model pickles), nn.Module hooks (forward pre-hooks and hooks with kwargs, prepend, always_call,
backward pre-hooks, global hooks, state_dict hooks) and the torch.export tutorial (export, ExportedProgram,
dynamic shapes with Dim, run_decompositions, save/load, unflatten)."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.export import Dim, export

torch.manual_seed(0)
classes = ("plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
N = 80
images = torch.randn(N, 3, 32, 32) * 0.5
labels = torch.randint(0, 10, (N,))
images[torch.arange(N), labels % 3, :4, :4] += 2.0  # a learnable cue
trainloader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels), batch_size=4,
                                          shuffle=True)
testloader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images[:40], labels[:40]), batch_size=4,
                                         shuffle=False)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
for epoch in range(2):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels_b = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels_b)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 10 == 9:
            print(f"[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 10:.4f}")
            running_loss = 0.0
print("Finished Training")
buf = io.BytesIO()
torch.save(net.state_dict(), buf)
buf.seek(0)
opt_state = optimizer.state_dict()
net = Net()
net.load_state_dict(torch.load(buf, weights_only=True))
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
optimizer.load_state_dict(opt_state)
dataiter = iter(testloader)
test_images, test_labels = next(dataiter)
print("GroundTruth: ", " ".join(f"{classes[test_labels[j]]:5s}" for j in range(4)))
outputs = net(test_images)
_, predicted = torch.max(outputs, 1)
print("Predicted: ", " ".join(f"{classes[predicted[j]]:5s}" for j in range(4)))
correct = 0
total = 0
with torch.no_grad():
    for data in testloader:
        imgs, lbls = data
        outputs = net(imgs)
        _, predicted = torch.max(outputs.data, 1)
        total += lbls.size(0)
        correct += (predicted == lbls).sum().item()
print(f"Accuracy of the network on the {total} test images: {100 * correct // total} %")
correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}
with torch.no_grad():
    for data in testloader:
        imgs, lbls = data
        outputs = net(imgs)
        _, predictions = torch.max(outputs, 1)
        for label, prediction in zip(lbls, predictions):
            if label == prediction:
                correct_pred[classes[label]] += 1
            total_pred[classes[label]] += 1
for classname, correct_count in correct_pred.items():
    accuracy = 100 * float(correct_count) / max(total_pred[classname], 1)
    print(f"Accuracy for class: {classname:5s} is {accuracy:.1f} %")

# ---------------------------------------------------------------- saving and loading
print("Model's state_dict:")
for param_tensor in net.state_dict():
    print(param_tensor, "\t", net.state_dict()[param_tensor].size())
print("Optimizer's state_dict keys:", list(optimizer.state_dict().keys()))
print("param_groups:", {k: v for k, v in optimizer.state_dict()["param_groups"][0].items() if k != "params"})
EPOCH, LOSS = 5, 0.4
ckpt = io.BytesIO()
torch.save({"epoch": EPOCH, "model_state_dict": net.state_dict(), "optimizer_state_dict": optimizer.state_dict(),
            "loss": LOSS}, ckpt)
ckpt.seek(0)
model = Net()
opt2 = optim.SGD(model.parameters(), lr=0.5, momentum=0.1)
checkpoint = torch.load(ckpt, weights_only=True)
model.load_state_dict(checkpoint["model_state_dict"])
opt2.load_state_dict(checkpoint["optimizer_state_dict"])
print("resumed", checkpoint["epoch"], checkpoint["loss"], opt2.param_groups[0]["lr"], opt2.param_groups[0]["momentum"])
print("momentum buffer restored", torch.equal(opt2.state[opt2.param_groups[0]["params"][0]]["momentum_buffer"],
                                              optimizer.state[optimizer.param_groups[0]["params"][0]]["momentum_buffer"]))
model.train()
for m, o in ((net, optimizer), (model, opt2)):
    o.zero_grad()
    criterion(m(images[:8]), labels[:8]).backward()
    o.step()
print("continued identically", torch.allclose(net.fc3.weight, model.fc3.weight))


class NetB(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.fc_new = nn.Linear(10, 2)


netB = NetB()
result = netB.load_state_dict(net.state_dict(), strict=False)
print("missing:", result.missing_keys)
print("unexpected:", sorted(result.unexpected_keys))
print("warmstarted conv1", torch.equal(netB.conv1.weight, net.conv1.weight))
try:
    netB.load_state_dict(net.state_dict())
except RuntimeError as e:
    print("strict load error:", str(e).splitlines()[0])
for ml in ("cpu", torch.device("cpu"), lambda storage, loc: storage, {"cuda:0": "cpu"}):
    ckpt.seek(0)
    sd = torch.load(ckpt, map_location=ml, weights_only=True)["model_state_dict"]
    print("map_location", type(ml).__name__, sd["fc3.bias"].device, round(sd["fc3.bias"].sum().item(), 5))
whole = io.BytesIO()
torch.save(net, whole)
whole.seek(0)
loaded = torch.load(whole, weights_only=False)
loaded.eval()
print("whole model", type(loaded).__name__, torch.equal(loaded(images[:2]), net(images[:2])))
whole.seek(0)
try:
    torch.load(whole, weights_only=True)
except Exception as e:
    print("weights_only refuses a module:", type(e).__name__)

# ---------------------------------------------------------------- module hooks
calls = []
lin = nn.Linear(3, 2)


def pre_hook_kwargs(module, args, kwargs):
    calls.append(("pre", len(args), sorted(kwargs)))
    return args, kwargs


def fwd_hook_kwargs(module, args, kwargs, output):
    calls.append(("fwd", sorted(kwargs), tuple(output.shape)))
    return output * 2


class KwModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)

    def forward(self, x, scale=1.0):
        return self.lin(x) * scale


km = KwModule()
h1 = km.register_forward_pre_hook(pre_hook_kwargs, with_kwargs=True)
h2 = km.register_forward_hook(fwd_hook_kwargs, with_kwargs=True)
h3 = km.register_forward_pre_hook(lambda m, a: calls.append(("prepended",)), prepend=True)
x = torch.randn(4, 3)
out = km(x, scale=3.0)
print("hook calls", calls)
print("hooked output", torch.allclose(out, km.lin(x) * 6.0))
h1.remove()
h2.remove()
h3.remove()
calls.clear()
out = km(x, scale=3.0)
print("after remove", calls, torch.allclose(out, km.lin(x) * 3.0))


def failing(m, a):
    raise ValueError("boom")


fail_mod = nn.Linear(2, 2)
fail_mod.register_forward_pre_hook(failing)
fail_mod.register_forward_hook(lambda m, a, o: calls.append("always"), always_call=True)
try:
    fail_mod(torch.ones(1, 2))
except ValueError:
    print("always_call hook ran", calls)
calls.clear()
bm = nn.Linear(3, 1)
bm.register_full_backward_pre_hook(lambda m, go: calls.append(("bpre", tuple(go[0].shape))) or (go[0] * 0.5,))
bm.register_full_backward_hook(lambda m, gi, go: calls.append(("bwd", gi[0] is None, tuple(go[0].shape))))
xi = torch.randn(2, 3, requires_grad=True)
bm(xi).sum().backward()
print("backward hooks", calls)
print("scaled grad", [round(v, 4) for v in bm.bias.grad.tolist()])
seen = []
g = nn.modules.module.register_module_forward_hook(lambda m, i, o: seen.append(type(m).__name__))
nn.Sequential(nn.Linear(2, 2), nn.ReLU())(torch.ones(1, 2))
g.remove()
print("global hook saw", seen)
sd_calls = []
sm = nn.Linear(2, 1)
sm.register_state_dict_pre_hook(lambda m, prefix, keep_vars: sd_calls.append(("sd_pre", prefix)))
sm.register_load_state_dict_post_hook(lambda m, incompatible: sd_calls.append(("load_post",
                                                                                 list(incompatible.missing_keys))))
sm.load_state_dict(sm.state_dict())
print("state_dict hooks", sd_calls)

# ---------------------------------------------------------------- torch.export


class MyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(100, 10)

    def forward(self, x, y):
        return nn.functional.relu(self.lin(x + y), inplace=True)


mod = MyModule()
exported_mod = export(mod, (torch.randn(8, 100), torch.randn(8, 100)))
print("exported type", type(exported_mod).__name__)
a, b = torch.randn(8, 100), torch.randn(8, 100)
print("exported matches", torch.allclose(exported_mod.module()(a, b), mod(a, b)))
print("user inputs", exported_mod.graph_signature.user_inputs)
print("parameters", exported_mod.graph_signature.parameters)
print("state_dict keys", sorted(exported_mod.state_dict.keys()))
try:
    exported_mod.module()(torch.randn(4, 100), torch.randn(4, 100))
    print("static shape accepted another batch")
except Exception as e:
    print("static shape rejects another batch", type(e).__name__)


class DynModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(5, 3)

    def forward(self, w, x, y, z):
        return w + self.l(x) + y + z


batch = Dim("batch")
dyn = export(DynModel(), (torch.randn(4, 3), torch.randn(4, 5), torch.randn(4, 3), torch.randn(4, 3)),
             dynamic_shapes={"w": {0: batch}, "x": {0: batch}, "y": {0: batch}, "z": {0: batch}})
out6 = dyn.module()(torch.ones(6, 3), torch.ones(6, 5), torch.ones(6, 3), torch.ones(6, 3))
print("dynamic batch 6", tuple(out6.shape))
print("range constraints", sorted(str(v) for v in dyn.range_constraints.values()))
decomposed = exported_mod.run_decompositions()
print("decomposed matches", torch.allclose(decomposed.module()(a, b), mod(a, b)))
eb = io.BytesIO()
torch.export.save(exported_mod, eb)
eb.seek(0)
reloaded = torch.export.load(eb)
print("reloaded matches", torch.allclose(reloaded.module()(a, b), mod(a, b)))


class Sub(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x).relu()


class Top(nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = Sub()
        self.out = nn.Linear(4, 2)

    def forward(self, x):
        return self.out(self.sub(x))


top = Top()
ep = export(top, (torch.randn(2, 4),))
unflat = torch.export.unflatten(ep)
xi = torch.randn(2, 4)
print("unflattened has sub", hasattr(unflat, "sub"), hasattr(unflat.sub, "fc"))
print("unflattened matches", torch.allclose(unflat(xi), top(xi)))
print("unflattened sub matches", torch.allclose(unflat.sub(xi), top.sub(xi)))
