"""Introduction to torch.compile (a function and a module, mode=, fullgraph=True, graph breaks counted by
torch._dynamo.explain, torch._dynamo.reset, a compiled training step, recompiling for new shapes) and the
Knowledge Distillation tutorial (teacher/student CNNs, soft-target KD loss, cosine loss on hidden
representations, a regressor matching intermediate feature maps), on synthetic CIFAR-like images."""
import torch
import torch._dynamo
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)
BACKEND = "aot_eager"  # no C++ toolchain needed; the tutorial's default inductor computes the same values


def foo(x, y):
    a = torch.sin(x)
    b = torch.cos(y)
    return a + b


opt_foo = torch.compile(foo, backend=BACKEND)
x, y = torch.randn(4, 4), torch.randn(4, 4)
print("compiled fn matches", torch.allclose(opt_foo(x, y), foo(x, y), atol=1e-6))
print("compiled fn sum", round(opt_foo(x, y).sum().item(), 4))
print("new shape", tuple(opt_foo(torch.randn(3, 5), torch.randn(3, 5)).shape))


@torch.compile(backend=BACKEND, fullgraph=True)
def fused_gelu(x):
    return 0.5 * x * (1 + torch.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


print("fullgraph gelu", [round(v, 4) for v in fused_gelu(torch.linspace(-2, 2, 5)).tolist()])
print("gelu tanh agrees", torch.allclose(fused_gelu(x), F.gelu(x, approximate="tanh"), atol=1e-6))


class MyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 8)

    def forward(self, x):
        return F.relu(self.lin(x))


mod = MyModule()
opt_mod = torch.compile(mod, backend=BACKEND)
t = torch.randn(5, 16)
print("compiled module matches", torch.allclose(opt_mod(t), mod(t), atol=1e-6))
print("compiled module type", type(opt_mod).__name__, opt_mod._orig_mod is mod)
print("state_dict keys", list(opt_mod.state_dict().keys()))
mod2 = MyModule()
mod2.compile(backend=BACKEND)
print("Module.compile matches", torch.allclose(mod2(t), mod2._call_impl(t), atol=1e-6))


def bar(a, b):
    x = a / (torch.abs(a) + 1)
    print("woo")
    if b.sum() < 0:
        b = b * -1
    return x * b


explanation = torch._dynamo.explain(bar)(torch.randn(10), torch.randn(10))
print("explain graph_count", explanation.graph_count)
print("explain graph_break_count", explanation.graph_break_count)
print("explain break reasons", len(explanation.break_reasons), len(explanation.ops_per_graph))
print("explain op_count", explanation.op_count > 0)
print(str(explanation).splitlines()[:2])


def baz(x):
    if x.sum() > 0:
        return x + 1
    return x * x[0].item()


for arg in (torch.ones(3), -torch.ones(3)):
    e = torch._dynamo.explain(baz)(arg)
    print("explain baz", e.graph_count, e.graph_break_count, len(e.graphs), e.break_reasons[0].graph_break)


def bar(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


torch._dynamo.reset()
opt_bar = torch.compile(bar, backend=BACKEND)
print("graph-broken result", [round(v, 4) for v in opt_bar(torch.ones(4), -torch.ones(4)).tolist()])
torch._dynamo.reset()
try:
    torch.compile(bar, backend=BACKEND, fullgraph=True)(torch.ones(4), torch.ones(4))
    print("fullgraph with a break: no error")
except Exception as e:
    print("fullgraph with a break raises", type(e).__name__)
torch._dynamo.reset()

# a compiled training step
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()
xs, ys = torch.randn(64, 16), torch.randint(0, 4, (64,))


@torch.compile(backend=BACKEND)
def train_step(xb, yb):
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(xb), yb)
    loss.backward()
    opt.step()
    return loss


for step in range(4):
    loss = train_step(xs[step * 16:(step + 1) * 16], ys[step * 16:(step + 1) * 16])
    print("compiled step", step, round(loss.item(), 4))
print("weights after compiled steps", round(model[0].weight.sum().item(), 4))

# ---------------------------------------------------------------- knowledge distillation
torch.manual_seed(1)
N = 96
images = torch.randn(N, 3, 8, 8)
labels = (images[:, 0].mean((1, 2)) > 0).long() + 2 * (images[:, 1].mean((1, 2)) > 0).long()
test_images = torch.randn(48, 3, 8, 8)
test_labels = (test_images[:, 0].mean((1, 2)) > 0).long() + 2 * (test_images[:, 1].mean((1, 2)) > 0).long()
train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels), batch_size=32,
                                           shuffle=True)
test_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(test_images, test_labels),
                                          batch_size=48, shuffle=False)
device = "cpu"


class DeepNN(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 8, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(8, 8, kernel_size=3, padding=1), nn.ReLU(),
        )
        self.classifier = nn.Sequential(nn.Linear(128, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


class LightNN(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 4, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(4, 8, kernel_size=3, padding=1), nn.ReLU(),
        )
        self.classifier = nn.Sequential(nn.Linear(128, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def train(model, train_loader, epochs, learning_rate, device):
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=learning_rate)
    model.train()
    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"Epoch {epoch + 1}/{epochs}, Loss: {running_loss / len(train_loader):.4f}")


def test(model, test_loader, device):
    model.to(device)
    model.eval()
    correct = 0
    total = 0
    with torch.no_grad():
        for inputs, labels in test_loader:
            outputs = model(inputs)
            if isinstance(outputs, tuple):
                outputs = outputs[0]
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    accuracy = 100 * correct / total
    print(f"Test Accuracy: {accuracy:.2f}%")
    return accuracy


torch.manual_seed(42)
nn_deep = DeepNN(num_classes=4).to(device)
train(nn_deep, train_loader, epochs=3, learning_rate=0.001, device=device)
test_accuracy_deep = test(nn_deep, test_loader, device)
torch.manual_seed(42)
nn_light = LightNN(num_classes=4).to(device)
torch.manual_seed(42)
new_nn_light = LightNN(num_classes=4).to(device)
print("Norm of 1st layer of nn_light:", round(torch.norm(nn_light.features[0].weight).item(), 4))
print("Norm of 1st layer of new_nn_light:", round(torch.norm(new_nn_light.features[0].weight).item(), 4))
print(f"DeepNN parameters: {sum(p.numel() for p in nn_deep.parameters()):,}")
print(f"LightNN parameters: {sum(p.numel() for p in nn_light.parameters()):,}")
train(nn_light, train_loader, epochs=3, learning_rate=0.001, device=device)
test_accuracy_light_ce = test(nn_light, test_loader, device)


def train_knowledge_distillation(teacher, student, train_loader, epochs, learning_rate, T, soft_target_loss_weight,
                                 ce_loss_weight, device):
    ce_loss = nn.CrossEntropyLoss()
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)
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
            soft_targets_loss = torch.sum(soft_targets * (soft_targets.log() - soft_prob)) / soft_prob.size()[0] * (T ** 2)
            label_loss = ce_loss(student_logits, labels)
            loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"KD Epoch {epoch + 1}/{epochs}, Loss: {running_loss / len(train_loader):.4f}")


train_knowledge_distillation(teacher=nn_deep, student=new_nn_light, train_loader=train_loader, epochs=3,
                             learning_rate=0.001, T=2, soft_target_loss_weight=0.25, ce_loss_weight=0.75,
                             device=device)
test_accuracy_light_ce_and_kd = test(new_nn_light, test_loader, device)
kl = nn.KLDivLoss(reduction="batchmean", log_target=False)
with torch.no_grad():
    t_log = F.log_softmax(nn_deep(test_images) / 2, dim=-1)
    s_log = F.log_softmax(new_nn_light(test_images) / 2, dim=-1)
print("KLDivLoss batchmean", round(kl(s_log, t_log.exp()).item(), 5))
print("KLDivLoss log_target", round(nn.KLDivLoss(reduction="batchmean", log_target=True)(s_log, t_log).item(), 5))


class ModifiedDeepNNCosine(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 8, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(8, 8, kernel_size=3, padding=1), nn.ReLU(),
        )
        self.classifier = nn.Sequential(nn.Linear(128, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, num_classes))

    def forward(self, x):
        x = self.features(x)
        flattened_conv_output = torch.flatten(x, 1)
        x = self.classifier(flattened_conv_output)
        flattened_conv_output_after_pooling = torch.nn.functional.avg_pool1d(flattened_conv_output, 2)
        return x, flattened_conv_output_after_pooling


class ModifiedLightNNCosine(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 4, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(4, 4, kernel_size=3, padding=1), nn.ReLU(),
        )
        self.classifier = nn.Sequential(nn.Linear(64, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, num_classes))

    def forward(self, x):
        x = self.features(x)
        flattened_conv_output = torch.flatten(x, 1)
        x = self.classifier(flattened_conv_output)
        return x, flattened_conv_output


modified_nn_deep = ModifiedDeepNNCosine(num_classes=4).to(device)
modified_nn_deep.load_state_dict(nn_deep.state_dict())
print("Norm of 1st layer for deep_nn:", round(torch.norm(nn_deep.features[0].weight).item(), 4))
print("Norm of 1st layer for modified_deep_nn:", round(torch.norm(modified_nn_deep.features[0].weight).item(), 4))
torch.manual_seed(42)
modified_nn_light = ModifiedLightNNCosine(num_classes=4).to(device)
sample_input = torch.randn(8, 3, 8, 8).to(device)
logits, hidden_representation = modified_nn_light(sample_input)
print("Student logits shape:", logits.shape)
print("Student hidden representation shape:", hidden_representation.shape)
logits, hidden_representation = modified_nn_deep(sample_input)
print("Teacher logits shape:", logits.shape)
print("Teacher hidden representation shape:", hidden_representation.shape)


def train_cosine_loss(teacher, student, train_loader, epochs, learning_rate, hidden_rep_loss_weight, ce_loss_weight,
                      device):
    ce_loss = nn.CrossEntropyLoss()
    cosine_loss = nn.CosineEmbeddingLoss()
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)
    teacher.to(device)
    student.to(device)
    teacher.eval()
    student.train()
    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            optimizer.zero_grad()
            with torch.no_grad():
                _, teacher_hidden_representation = teacher(inputs)
            student_logits, student_hidden_representation = student(inputs)
            hidden_rep_loss = cosine_loss(student_hidden_representation, teacher_hidden_representation,
                                          target=torch.ones(inputs.size(0)).to(device))
            label_loss = ce_loss(student_logits, labels)
            loss = hidden_rep_loss_weight * hidden_rep_loss + ce_loss_weight * label_loss
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"Cosine Epoch {epoch + 1}/{epochs}, Loss: {running_loss / len(train_loader):.4f}")


train_cosine_loss(teacher=modified_nn_deep, student=modified_nn_light, train_loader=train_loader, epochs=3,
                  learning_rate=0.001, hidden_rep_loss_weight=0.25, ce_loss_weight=0.75, device=device)
test_accuracy_light_ce_and_cosine_loss = test(modified_nn_light, test_loader, device)

convolutional_fe_output_student = nn_light.features(sample_input)
convolutional_fe_output_teacher = nn_deep.features(sample_input)
print("Student's feature extractor output shape: ", convolutional_fe_output_student.shape)
print("Teacher's feature extractor output shape: ", convolutional_fe_output_teacher.shape)


class ModifiedDeepNNRegressor(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 8, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(8, 8, kernel_size=3, padding=1), nn.ReLU(),
        )
        self.classifier = nn.Sequential(nn.Linear(128, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, num_classes))

    def forward(self, x):
        x = self.features(x)
        conv_feature_map = x
        x = torch.flatten(x, 1)
        x = self.classifier(x)
        return x, conv_feature_map


class ModifiedLightNNRegressor(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 4, kernel_size=3, padding=1), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(4, 4, kernel_size=3, padding=1), nn.ReLU(),
        )
        self.regressor = nn.Sequential(nn.Conv2d(4, 8, kernel_size=3, padding=1))
        self.classifier = nn.Sequential(nn.Linear(64, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, num_classes))

    def forward(self, x):
        x = self.features(x)
        regressor_output = self.regressor(x)
        x = torch.flatten(x, 1)
        x = self.classifier(x)
        return x, regressor_output


def train_mse_loss(teacher, student, train_loader, epochs, learning_rate, feature_map_weight, ce_loss_weight, device):
    ce_loss = nn.CrossEntropyLoss()
    mse_loss = nn.MSELoss()
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)
    teacher.to(device)
    student.to(device)
    teacher.eval()
    student.train()
    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            optimizer.zero_grad()
            with torch.no_grad():
                _, teacher_feature_map = teacher(inputs)
            student_logits, regressor_feature_map = student(inputs)
            hidden_rep_loss = mse_loss(regressor_feature_map, teacher_feature_map)
            label_loss = ce_loss(student_logits, labels)
            loss = feature_map_weight * hidden_rep_loss + ce_loss_weight * label_loss
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"MSE Epoch {epoch + 1}/{epochs}, Loss: {running_loss / len(train_loader):.4f}")


torch.manual_seed(42)
modified_nn_light_reg = ModifiedLightNNRegressor(num_classes=4).to(device)
modified_nn_deep_reg = ModifiedDeepNNRegressor(num_classes=4).to(device)
modified_nn_deep_reg.load_state_dict(nn_deep.state_dict())
train_mse_loss(teacher=modified_nn_deep_reg, student=modified_nn_light_reg, train_loader=train_loader, epochs=3,
               learning_rate=0.001, feature_map_weight=0.25, ce_loss_weight=0.75, device=device)
test_accuracy_light_ce_and_mse_loss = test(modified_nn_light_reg, test_loader, device)
print(f"Teacher accuracy: {test_accuracy_deep:.2f}%")
print(f"Student accuracy without teacher: {test_accuracy_light_ce:.2f}%")
print(f"Student accuracy with CE + KD: {test_accuracy_light_ce_and_kd:.2f}%")
print(f"Student accuracy with CE + CosineLoss: {test_accuracy_light_ce_and_cosine_loss:.2f}%")
print(f"Student accuracy with CE + RegressorMSE: {test_accuracy_light_ce_and_mse_loss:.2f}%")
