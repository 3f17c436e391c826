"""Model set-up idioms and what scripts print about them: cudnn/tf32/float32-matmul-precision flags
(torch.backends.cuda.matmul is torch's cuBLASModule, its allow_tf32 a view of set_float32_matmul_precision),
model.apply(init_fn) with nn.init.*, print(model)/print(optimizer), parameter counts, frozen layers, param groups,
gradient accumulation with clip_grad_norm_/clip_grad_value_ under set_detect_anomaly, parameters_to_vector,
set_printoptions, tensor reprs of many dtypes, bf16 autocast training on cpu, GradScaler, scheduler state_dicts."""
import torch
import warnings
from torch import nn
from torch.optim import lr_scheduler as S


torch.manual_seed(0)
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = False
print("cudnn", torch.backends.cudnn.benchmark, torch.backends.cudnn.enabled, torch.backends.cudnn.is_available())
torch.set_float32_matmul_precision("high")
print("prec", torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
torch.backends.cuda.matmul.allow_tf32 = True
print("tf32", torch.get_float32_matmul_precision())


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(4, 6), nn.GELU(approximate="tanh"), nn.LayerNorm(6),
                                  nn.Dropout(p=0.1), nn.Linear(6, 3))
        self.emb = nn.Embedding(10, 4, padding_idx=0)

    def forward(self, x):
        return self.head(self.pool(torch.relu(self.bn(self.conv(x)))))


def init_fn(m):
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
    elif isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("tanh"))
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Embedding):
        nn.init.trunc_normal_(m.weight, std=0.02, a=-0.04, b=0.04)
    elif isinstance(m, nn.LayerNorm):
        nn.init.constant_(m.weight, 1.5)


m = Net()
print(m.apply(init_fn) is m)
print(m)
print(m.conv.weight.flatten()[:5], m.head[1].weight[0], m.emb.weight[1])
w = torch.empty(4, 6)
nn.init.orthogonal_(w)
print(w)
nn.init.kaiming_uniform_(w, a=5 ** 0.5)
print(w[0])
nn.init.normal_(w, 0, 0.1); print(w[1])
nn.init.uniform_(w, -1, 1); print(w[2])
nn.init.sparse_(w, 0.5); print((w == 0).sum(0))
nn.init.eye_(w); print(w.sum())
nn.init.xavier_normal_(w); print(w[3])
nn.init.dirac_(torch.empty(2, 2, 3)); print(nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("selu"))
n_params = sum(p.numel() for p in m.parameters())
n_train = sum(p.numel() for p in m.parameters() if p.requires_grad)
print(f"params {n_params:,} trainable {n_train:,}")
for name, p in m.named_parameters():
    print(name, tuple(p.shape), p.dtype, p.requires_grad)
for name, b in m.named_buffers():
    print("buf", name, b)
m.conv.requires_grad_(False)
print("frozen", [n for n, p in m.named_parameters() if not p.requires_grad])

x = torch.randn(5, 3, 4, 4)
y = torch.randint(0, 3, (5,))
opt = torch.optim.SGD([{"params": m.head.parameters(), "lr": 0.1, "weight_decay": 1e-3},
                       {"params": m.bn.parameters()}], lr=0.05, momentum=0.9, nesterov=True)
print(opt)
with torch.autograd.set_detect_anomaly(True):
    for it in range(4):
        opt.zero_grad(set_to_none=(it % 2 == 0))
        for micro in range(2):
            out = m(x[micro::2])
            loss = nn.functional.cross_entropy(out, y[micro::2]) / 2
            loss.backward()
        tn = nn.utils.clip_grad_norm_(m.parameters(), max_norm=0.5)
        nn.utils.clip_grad_value_(m.parameters(), 0.05)
        opt.step()
        print(f"it {it} loss {loss.item():.4f} norm {tn:.4f}", tn, m.conv.weight.grad)
print(loss)
print(out)
print(out.sum(), out.mean(1), out[0, 0])
print(torch.is_anomaly_enabled())
vec = nn.utils.parameters_to_vector(m.head.parameters())
print(vec.shape, vec[:3])
nn.utils.vector_to_parameters(vec * 0 + 1, m.head.parameters())
print(m.head[1].bias)

torch.set_printoptions(precision=2, sci_mode=False)
t = torch.tensor([[1e-5, 123456.789, -0.5], [3.14159, 2.0, 1e8]])
print(t)
torch.set_printoptions(precision=6, sci_mode=True)
print(t)
torch.set_printoptions(profile="default")
print(t)
torch.set_printoptions(threshold=5, edgeitems=2, linewidth=40)
print(torch.arange(20.).reshape(4, 5))
torch.set_printoptions(profile="default")
print(torch.arange(6, dtype=torch.int16), torch.tensor([True, False]), torch.tensor([1.5], dtype=torch.float16))
print(torch.tensor([1.25, 2], dtype=torch.bfloat16), torch.tensor([1 + 2j]), torch.tensor(3, dtype=torch.uint8))
print(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0]))
print(torch.zeros(0, 3), torch.ones(2, 0, dtype=torch.long), torch.tensor([], dtype=torch.float64))
print(torch.tensor([1e-10, 1.0]), torch.tensor([100000.0, 1.0]), torch.tensor([1e20]), torch.tensor([0.1, 10.0, 1000.0]))
a = torch.randn(2, 3, requires_grad=True)
b = (a * 2).sum(0)
print(b)
print(type(b.grad_fn).__name__, [(type(f).__name__, i) for f, i in a.mean().grad_fn.next_functions])
print(a[0].exp(), a.t(), a.view(3, 2), a.max(1))
print(torch.topk(a.detach(), 2), torch.sort(a.detach(), descending=True).indices)
s = torch.Size([2, 3, 4])
print(s, s[1:], s + (5,), s.numel(), len(s), s == (2, 3, 4), torch.Size([]), list(s), type(s[1:]).__name__)
print(torch.finfo(torch.float32), torch.iinfo(torch.int8))
print(torch.float32, torch.get_default_dtype(), torch.device("cpu"), x.device, repr(x.dtype), str(torch.long))


m = torch.backends.cuda.matmul
print(type(m).__name__, m.allow_tf32, m.fp32_precision, m.allow_fp16_reduced_precision_reduction, m.allow_bf16_reduced_precision_reduction_split_k, m.allow_fp16_accumulation)
m.allow_tf32 = True
print(torch.get_float32_matmul_precision(), m.fp32_precision)
torch.set_float32_matmul_precision("medium")
print(m.allow_tf32, m.fp32_precision, torch.backends.cudnn.allow_tf32)
torch.set_float32_matmul_precision("highest")
print(m.allow_tf32, m.fp32_precision, torch.get_float32_matmul_precision())
m.fp32_precision = "ieee"
print(torch.get_float32_matmul_precision(), m.allow_tf32)
m.allow_fp16_reduced_precision_reduction = (False, False)
m.allow_bf16_reduced_precision_reduction = [False]
print(m.allow_fp16_reduced_precision_reduction, m.allow_fp16_reduced_precision_reduction_split_k, m.allow_bf16_reduced_precision_reduction, m.allow_bf16_reduced_precision_reduction_split_k)
print(hasattr(m, "allow_tf23"))
for stmt in ["m.allow_tf23 = True", "m.allow_tf32 = 1", "m.fp32_precision = 'bf16'", "m.fp32_precision = 'x'",
             "m.allow_fp16_reduced_precision_reduction = 1", "m.allow_bf16_reduced_precision_reduction = []",
             "m.allow_bf16_reduced_precision_reduction = (True, 1)", "m.allow_fp16_accumulation = 0"]:
    try:
        exec(stmt)
    except Exception as e:
        print(type(e).__name__, e)


torch.manual_seed(0)
m = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(m.parameters(), lr=1e-2)
x = torch.randn(32, 6)
y = torch.randint(0, 3, (32,))
for i in range(5):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = m(x)
        loss = nn.functional.cross_entropy(out, y)
    print(i, out.dtype, loss.dtype, f"{loss.item():.3f}", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
    opt.zero_grad()
    loss.backward()
    opt.step()
print(m[0].weight.grad.dtype, torch.is_autocast_enabled())
with torch.autocast(device_type="cpu"):
    print(torch.mm(x, x.t()).dtype, (x + 1).dtype, torch.get_autocast_cpu_dtype())
scaler = torch.amp.GradScaler("cpu", enabled=False)
print(scaler.is_enabled(), scaler.get_scale() if scaler.is_enabled() else None)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    s2 = torch.cuda.amp.GradScaler()
    print(s2.is_enabled(), [x.category.__name__ for x in w])
print(scaler.scale(loss) is loss, scaler.state_dict())

sch = S.LambdaLR(opt, lambda e: 0.5 ** e)
print(sch.state_dict())
sch2 = S.StepLR(opt, 3)
print({k: v for k, v in sch2.state_dict().items()})
p = S.ReduceLROnPlateau(opt, "max", patience=0)
p.step(torch.tensor(0.5))
p.step(0.4)
print(p.state_dict())
print(p.get_last_lr(), p.num_bad_epochs, p.best, p.in_cooldown, p.mode)
with torch.autograd.detect_anomaly():
    a = torch.tensor([0.0, 1.0], requires_grad=True)
    b = torch.sqrt(a) * 0
    try:
        (a / a).sum().backward()
        print("grad", a.grad)
    except RuntimeError as e:
        print("anomaly", str(e)[:80])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        pass
    print([str(x.message)[:50] for x in w])
torch.autograd.set_detect_anomaly(True, check_nan=False)
print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
torch.autograd.set_detect_anomaly(False)
print(torch.is_anomaly_enabled())
