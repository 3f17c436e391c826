"""Dilated causal convolutions from two papers, small and on synthetic data.

WaveNet (van den Oord et al.) after the common PyTorch reimplementations (golbin/WaveNet, r9y9/wavenet_vocoder):
mu-law companding (numpy and torch forms, encode/decode), one-hot inputs from np.eye, CausalConv1d (pad then chomp),
DilatedCausalConv1d stacks with gated tanh * sigmoid units, residual and skip 1x1 convolutions cut to the output
length, the receptive field arithmetic, softmax over 256 quantisation channels, cross-entropy training and a few
steps of autoregressive sampling with torch.multinomial.

TCN (Bai, Kolter, Koltun) after locuslab/TCN: Chomp1d, TemporalBlock with the legacy nn.utils.weight_norm (its
deprecation warning, init_weights through .weight.data that the weight_g/weight_v recomputation overwrites),
TemporalConvNet with (k - 1) * dilation padding, the adding problem's data_generator, Adam and clip_grad_norm_."""
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import weight_norm

# ---------------------------------------------------------------- WaveNet


def mu_law_encode_np(audio, quantization_channels=256):
    mu = float(quantization_channels - 1)
    safe_audio_abs = np.minimum(np.abs(audio), 1.0)
    magnitude = np.log1p(mu * safe_audio_abs) / np.log1p(mu)
    signal = np.sign(audio) * magnitude
    return ((signal + 1) / 2 * mu + 0.5).astype(np.int64)


def mu_law_encoding(x, quantization_channels=256):
    mu = quantization_channels - 1.0
    if not x.is_floating_point():
        x = x.to(torch.float)
    mu = torch.tensor(mu, dtype=x.dtype)
    x_mu = torch.sign(x) * torch.log1p(mu * torch.abs(x)) / torch.log1p(mu)
    x_mu = ((x_mu + 1) / 2 * mu + 0.5).to(torch.int64)
    return x_mu


def mu_law_decoding(x_mu, quantization_channels=256):
    mu = quantization_channels - 1.0
    if not x_mu.is_floating_point():
        x_mu = x_mu.to(torch.float)
    mu = torch.tensor(mu, dtype=x_mu.dtype)
    x = ((x_mu) / mu) * 2 - 1.0
    x = torch.sign(x) * (torch.exp(torch.abs(x) * torch.log1p(mu)) - 1.0) / mu
    return x


def one_hot_encode(data, channels=256):
    one_hot = np.zeros((data.size, channels), dtype=float)
    one_hot[np.arange(data.size), data.ravel()] = 1
    return one_hot


class DilatedCausalConv1d(torch.nn.Module):
    def __init__(self, channels, dilation=1):
        super(DilatedCausalConv1d, self).__init__()
        self.conv = torch.nn.Conv1d(channels, channels, kernel_size=2, stride=1, dilation=dilation, padding=0,
                                    bias=False)

    def init_weights_for_test(self):
        for m in self.modules():
            if isinstance(m, torch.nn.Conv1d):
                m.weight.data.fill_(1)

    def forward(self, x):
        return self.conv(x)


class CausalConv1d(torch.nn.Module):
    def __init__(self, in_channels, out_channels):
        super(CausalConv1d, self).__init__()
        self.conv = torch.nn.Conv1d(in_channels, out_channels, kernel_size=2, stride=1, padding=1, bias=False)

    def init_weights_for_test(self):
        for m in self.modules():
            if isinstance(m, torch.nn.Conv1d):
                m.weight.data.fill_(1)

    def forward(self, x):
        output = self.conv(x)
        return output[:, :, :-1]


class ResidualBlock(torch.nn.Module):
    def __init__(self, res_channels, skip_channels, dilation):
        super(ResidualBlock, self).__init__()
        self.dilated = DilatedCausalConv1d(res_channels, dilation=dilation)
        self.conv_res = torch.nn.Conv1d(res_channels, res_channels, 1)
        self.conv_skip = torch.nn.Conv1d(res_channels, skip_channels, 1)
        self.gate_tanh = torch.nn.Tanh()
        self.gate_sigmoid = torch.nn.Sigmoid()

    def forward(self, x, skip_size):
        output = self.dilated(x)
        gated_tanh = self.gate_tanh(output)
        gated_sigmoid = self.gate_sigmoid(output)
        gated = gated_tanh * gated_sigmoid
        output = self.conv_res(gated)
        input_cut = x[:, :, -output.size(2):]
        output += input_cut
        skip = self.conv_skip(gated)
        skip = skip[:, :, -skip_size:]
        return output, skip


class ResidualStack(torch.nn.Module):
    def __init__(self, layer_size, stack_size, res_channels, skip_channels):
        super(ResidualStack, self).__init__()
        self.layer_size = layer_size
        self.stack_size = stack_size
        self.res_blocks = torch.nn.ModuleList(
            [ResidualBlock(res_channels, skip_channels, dilation) for dilation in self.build_dilations()])

    def build_dilations(self):
        dilations = []
        for s in range(0, self.stack_size):
            for l in range(0, self.layer_size):  # noqa: E741
                dilations.append(2 ** l)
        return dilations

    def forward(self, x, skip_size):
        output = x
        skip_connections = []
        for res_block in self.res_blocks:
            output, skip = res_block(output, skip_size)
            skip_connections.append(skip)
        return torch.stack(skip_connections)


class DensNet(torch.nn.Module):
    def __init__(self, channels):
        super(DensNet, self).__init__()
        self.conv1 = torch.nn.Conv1d(channels, channels, 1)
        self.conv2 = torch.nn.Conv1d(channels, channels, 1)
        self.relu = torch.nn.ReLU()
        self.softmax = torch.nn.Softmax(dim=1)

    def forward(self, x):
        output = self.relu(x)
        output = self.conv1(output)
        output = self.relu(output)
        output = self.conv2(output)
        return self.softmax(output)


class WaveNet(torch.nn.Module):
    def __init__(self, layer_size, stack_size, in_channels, res_channels):
        super(WaveNet, self).__init__()
        self.receptive_fields = self.calc_receptive_fields(layer_size, stack_size)
        self.causal = CausalConv1d(in_channels, res_channels)
        self.res_stack = ResidualStack(layer_size, stack_size, res_channels, in_channels)
        self.densnet = DensNet(in_channels)

    @staticmethod
    def calc_receptive_fields(layer_size, stack_size):
        layers = [2 ** i for i in range(0, layer_size)] * stack_size
        num_receptive_fields = np.sum(layers)
        return int(num_receptive_fields)

    def calc_output_size(self, x):
        output_size = int(x.size(2)) - self.receptive_fields
        self.check_input_size(x, output_size)
        return output_size

    def check_input_size(self, x, output_size):
        if output_size < 1:
            raise ValueError(f"Input size has to be larger than receptive_fields ({self.receptive_fields})")

    def forward(self, x):
        output = x.transpose(1, 2)
        output_size = self.calc_output_size(output)
        output = self.causal(output)
        skip_connections = self.res_stack(output, output_size)
        output = torch.sum(skip_connections, dim=0)
        output = self.densnet(output)
        return output.transpose(1, 2).contiguous()


def wavenet_main():
    torch.manual_seed(5)
    np.random.seed(5)
    channels = 256
    t = np.linspace(0, 1, 200, dtype=np.float32)
    audio = 0.6 * np.sin(2 * np.pi * 7 * t) * np.exp(-t) + 0.05 * np.random.randn(200).astype(np.float32)
    q_np = mu_law_encode_np(audio, channels)
    q_t = mu_law_encoding(torch.from_numpy(audio), channels)
    print("mu-law", q_np[:6].tolist(), q_t[:6].tolist(), q_t.dtype, bool((q_t.numpy() == q_np).all()))
    dec = mu_law_decoding(q_t, channels)
    print("decode", dec.dtype, f"{(dec - torch.from_numpy(audio)).abs().max().item():.5f}")
    print("int encode", mu_law_encoding(torch.tensor([-1, 0, 1])).tolist())

    cc = CausalConv1d(1, 1)
    cc.init_weights_for_test()
    dc = DilatedCausalConv1d(1, dilation=2)
    dc.init_weights_for_test()
    ramp = torch.arange(1, 9, dtype=torch.float32).view(1, 1, 8)
    print("causal", cc(ramp).tolist(), "dilated", dc(ramp).tolist())

    layer_size, stack_size, res_channels = 4, 2, 16
    net = WaveNet(layer_size, stack_size, channels, res_channels)
    print("receptive_fields", net.receptive_fields, net.res_stack.build_dilations())
    print("params", sum(p.numel() for p in net.parameters()))
    optimizer = torch.optim.Adam(net.parameters(), lr=0.002)
    loss_fn = torch.nn.CrossEntropyLoss()
    sample_size = net.receptive_fields + 16
    one_hot = one_hot_encode(q_np, channels)
    print("one_hot", one_hot.shape, one_hot.dtype, int(one_hot.sum()))
    for step in range(4):
        start = step * 20
        inputs = torch.from_numpy(one_hot[start:start + sample_size]).float().unsqueeze(0)
        targets = torch.from_numpy(q_np[start + net.receptive_fields:start + sample_size]).long().unsqueeze(0)
        outputs = net(inputs)
        loss = loss_fn(outputs.view(-1, channels), targets.long().view(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"[step {step}] loss {loss.item():.5f} out {tuple(outputs.shape)} sum {outputs.sum().item():.3f}")
    try:
        net(torch.zeros(1, net.receptive_fields, channels))
    except ValueError as e:
        print("ValueError", e)

    net.eval()
    gen = torch.Generator().manual_seed(11)
    window = torch.from_numpy(one_hot[:net.receptive_fields + 1]).float().unsqueeze(0)
    generated = []
    with torch.no_grad():
        for _ in range(5):
            probs = net(window)[0, -1]
            nxt = torch.multinomial(probs, 1, generator=gen).item()
            generated.append(nxt)
            new = F.one_hot(torch.tensor([nxt]), channels).float().unsqueeze(0)
            window = torch.cat([window[:, 1:], new], dim=1)
    print("generated", generated, window.shape,
          f"{mu_law_decoding(torch.tensor(generated)).abs().max().item() <= 1}")


# ---------------------------------------------------------------- TCN


class Chomp1d(nn.Module):
    def __init__(self, chomp_size):
        super(Chomp1d, self).__init__()
        self.chomp_size = chomp_size

    def forward(self, x):
        return x[:, :, :-self.chomp_size].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, n_inputs, n_outputs, kernel_size, stride, dilation, padding, dropout=0.2):
        super(TemporalBlock, self).__init__()
        self.conv1 = weight_norm(nn.Conv1d(n_inputs, n_outputs, kernel_size, stride=stride, padding=padding,
                                           dilation=dilation))
        self.chomp1 = Chomp1d(padding)
        self.relu1 = nn.ReLU()
        self.dropout1 = nn.Dropout(dropout)
        self.conv2 = weight_norm(nn.Conv1d(n_outputs, n_outputs, kernel_size, stride=stride, padding=padding,
                                           dilation=dilation))
        self.chomp2 = Chomp1d(padding)
        self.relu2 = nn.ReLU()
        self.dropout2 = nn.Dropout(dropout)
        self.net = nn.Sequential(self.conv1, self.chomp1, self.relu1, self.dropout1,
                                 self.conv2, self.chomp2, self.relu2, self.dropout2)
        self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None
        self.relu = nn.ReLU()
        self.init_weights()

    def init_weights(self):
        self.conv1.weight.data.normal_(0, 0.01)
        self.conv2.weight.data.normal_(0, 0.01)
        if self.downsample is not None:
            self.downsample.weight.data.normal_(0, 0.01)

    def forward(self, x):
        out = self.net(x)
        res = x if self.downsample is None else self.downsample(x)
        return self.relu(out + res)


class TemporalConvNet(nn.Module):
    def __init__(self, num_inputs, num_channels, kernel_size=2, dropout=0.2):
        super(TemporalConvNet, self).__init__()
        layers = []
        num_levels = len(num_channels)
        for i in range(num_levels):
            dilation_size = 2 ** i
            in_channels = num_inputs if i == 0 else num_channels[i - 1]
            out_channels = num_channels[i]
            layers += [TemporalBlock(in_channels, out_channels, kernel_size, stride=1, dilation=dilation_size,
                                     padding=(kernel_size - 1) * dilation_size, dropout=dropout)]
        self.network = nn.Sequential(*layers)

    def forward(self, x):
        return self.network(x)


class TCN(nn.Module):
    def __init__(self, input_size, output_size, num_channels, kernel_size, dropout):
        super(TCN, self).__init__()
        self.tcn = TemporalConvNet(input_size, num_channels, kernel_size=kernel_size, dropout=dropout)
        self.linear = nn.Linear(num_channels[-1], output_size)
        self.init_weights()

    def init_weights(self):
        self.linear.weight.data.normal_(0, 0.01)

    def forward(self, x):
        y1 = self.tcn(x)
        return self.linear(y1[:, :, -1])


def data_generator(N, seq_length):
    X_num = torch.rand([N, 1, seq_length])
    X_mask = torch.zeros([N, 1, seq_length])
    Y = torch.zeros([N, 1])
    for i in range(N):
        positions = np.random.choice(seq_length, size=2, replace=False)
        X_mask[i, 0, positions[0]] = 1
        X_mask[i, 0, positions[1]] = 1
        Y[i, 0] = X_num[i, 0, positions[0]] + X_num[i, 0, positions[1]]
    X = torch.cat((X_num, X_mask), dim=1)
    return Variable(X), Variable(Y)


def Variable(x):
    return torch.autograd.Variable(x)


def tcn_main():
    torch.manual_seed(1111)
    np.random.seed(1111)
    input_channels, n_classes, batch_size, seq_length = 2, 1, 16, 40
    X_train, Y_train = data_generator(64, seq_length)
    X_test, Y_test = data_generator(16, seq_length)
    print("adding data", tuple(X_train.shape), tuple(Y_train.shape), f"{Y_train.mean().item():.4f}")
    channel_sizes = [12] * 4
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = TCN(input_channels, n_classes, channel_sizes, kernel_size=3, dropout=0.0)
    print("weight_norm warnings", sorted({type(w.message).__name__ for w in caught}))
    conv1 = model.tcn.network[0].conv1
    print("conv1 params", [n for n, _ in conv1.named_parameters()], tuple(conv1.weight_g.shape),
          type(conv1.weight).__name__, conv1.weight.requires_grad, conv1.weight.is_leaf)
    print("conv1 weight std", f"{conv1.weight.std().item():.5f}", "weight_v std", f"{conv1.weight_v.std().item():.5f}")
    print("state_dict", len(model.state_dict()), list(model.state_dict())[:4])
    optimizer = getattr(torch.optim, "Adam")(model.parameters(), lr=4e-3)
    model.train()
    for epoch in range(2):
        batch_idx = 1
        total_loss = 0
        for i in range(0, X_train.size(0), batch_size):
            if i + batch_size > X_train.size(0):
                x, y = X_train[i:], Y_train[i:]
            else:
                x, y = X_train[i:(i + batch_size)], Y_train[i:(i + batch_size)]
            optimizer.zero_grad()
            output = model(x)
            loss = F.mse_loss(output, y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            batch_idx += 1
            total_loss += loss.item()
        print('Train Epoch: {:2d} \tLoss: {:.5f}'.format(epoch, total_loss / (batch_idx - 1)))
    print("conv1 weight after", f"{conv1.weight.std().item():.5f}", f"{conv1.weight_g.mean().item():.5f}")
    model.eval()
    with torch.no_grad():
        output = model(X_test)
        test_loss = F.mse_loss(output, Y_test)
    print('Test set: Average loss: {:.5f}'.format(test_loss.item()))


if __name__ == "__main__":
    wavenet_main()
    tcn_main()
