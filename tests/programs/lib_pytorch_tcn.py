"""pytorch-tcn: temporal convolutional networks built from configs (causal with weight_norm parametrizations,
non-causal with batch/layer norm, gated activations, skip connections, NLC input, embeddings, an output
projection), trained a few steps on a seeded sequence task with torch optimizers; then streaming inference
(``inference=True`` one step at a time with the padding buffers) checked against the full causal forward, buffer
resets, and a state_dict round trip."""
import io

import torch
import torch.nn.functional as F
from pytorch_tcn import TCN, TemporalConv1d


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


torch.manual_seed(0)
B, C, L = 4, 3, 24
x = torch.randn(B, C, L)
target = torch.cumsum(x[:, :1], dim=-1) * 0.2  # a causal target: running sum of channel 0

CONFIGS = [
    ("causal weight_norm", dict(num_channels=[8, 8], kernel_size=3, dropout=0.1, causal=True,
                                use_norm="weight_norm", output_projection=1)),
    ("causal gated skip", dict(num_channels=[8, 8, 8], kernel_size=2, dilations=[1, 2, 4], dropout=0.0,
                               causal=True, use_norm=None, use_gate=True, use_skip_connections=True,
                               activation="gelu", output_projection=1)),
    ("noncausal batch_norm", dict(num_channels=[6, 6], kernel_size=3, dropout=0.0, causal=False,
                                  use_norm="batch_norm", kernel_initializer="kaiming_normal", output_projection=1)),
    ("noncausal layer_norm", dict(num_channels=[6, 6], kernel_size=3, dropout=0.0, causal=False,
                                  use_norm="layer_norm", activation="tanh", kernel_initializer="normal",
                                  output_projection=1, output_activation="tanh")),
]
models = {}
for i, (name, cfg) in enumerate(CONFIGS):
    torch.manual_seed(10 + i)
    model = TCN(C, **cfg)
    models[name] = model
    # (batch norm follows each conv, so the convs' biases have an exact gradient of zero: Adam would scale the
    # floating-point noise of those gradients to full steps, so that model trains with SGD)
    opt = (torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9) if "batch_norm" in name
           else torch.optim.Adam(model.parameters(), lr=5e-3))
    losses = []
    for step in range(4):
        model.train()
        opt.zero_grad()
        loss = F.mse_loss(model(x), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        out = model(x)
    print(name, sum(p.numel() for p in model.parameters()), r(losses), tuple(out.shape), r(out[0, 0, -4:]))

# NLC input, embeddings added per time step, dilation reset
torch.manual_seed(20)
tcn = TCN(C, [8, 8, 8, 8], kernel_size=2, dilation_reset=4, input_shape="NLC", embedding_shapes=[(5,)],
          embedding_mode="add", dropout=0.0, output_projection=2)
emb = torch.randn(B, 5)
opt = torch.optim.SGD(tcn.parameters(), lr=0.05, momentum=0.9)
for step in range(3):
    opt.zero_grad()
    out = tcn(x.transpose(1, 2), embeddings=[emb])
    loss = out.pow(2).mean()
    loss.backward()
    opt.step()
print("nlc embeddings", tuple(out.shape), r(loss), [layer.conv1.dilation[0] for layer in tcn.network])

# streaming inference: feeding one step at a time reproduces the causal full-sequence output
model = models["causal weight_norm"]
model.eval()
with torch.no_grad():
    full = model(x[:1])
    model.reset_buffers()
    steps = [model.inference(x[:1, :, t:t + 1]) for t in range(L)]
stream = torch.cat(steps, dim=-1)
print("streaming", tuple(stream.shape), torch.allclose(stream, full, atol=1e-5), r(stream[0, 0, :4]))
print("buffers", [tuple(b.shape) for b in model.get_buffers()][:3])
model.reset_buffers()
print("reset", r(sum(b.abs().sum() for b in model.get_buffers())))

conv = TemporalConv1d(2, 3, kernel_size=3, dilation=2, causal=True)
print("temporal conv", tuple(conv(torch.randn(1, 2, 7)).shape), conv.padding)

buf = io.BytesIO()
torch.save(models["noncausal batch_norm"].state_dict(), buf)
buf.seek(0)
torch.manual_seed(99)
clone = TCN(C, **CONFIGS[2][1])
clone.load_state_dict(torch.load(buf))
clone.eval()
with torch.no_grad():
    print("reloaded", torch.allclose(clone(x), models["noncausal batch_norm"](x), atol=1e-6))
print("keys", len(clone.state_dict()), sorted(clone.state_dict())[:3])
