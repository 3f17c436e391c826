"""torchinfo: summary() of a small CNN, an LSTM model and a transformer block (table with output shapes,
parameter counts, mult-adds, sizes), then a few training steps of the CNN."""
import torch
from torch import nn
from torchinfo import summary


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.1), nn.Linear(64, 10))

    def forward(self, x):
        return self.head(self.features(x))


class LSTMNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.lstm = nn.LSTM(16, 32, num_layers=2, batch_first=True)
        self.fc = nn.Linear(32, 5)

    def forward(self, x):
        out, _ = self.lstm(self.emb(x))
        return self.fc(out[:, -1])


torch.manual_seed(0)
net = Net()
print(summary(net, input_size=(4, 1, 16, 16), verbose=0))
print(summary(net, input_size=(2, 1, 16, 16), col_names=("input_size", "output_size", "num_params", "kernel_size",
                                                        "mult_adds", "trainable"), depth=1, verbose=0))
print(summary(LSTMNet(), input_data=torch.randint(0, 100, (3, 7)), verbose=0))
layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True)
stats = summary(nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False), input_size=(2, 5, 32),
                verbose=0, row_settings=("var_names", "depth"))
print(stats)
print("total", stats.total_params, "trainable", stats.trainable_params, "mult_adds", stats.total_mult_adds)

opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(16, 1, 16, 16)
y = torch.randint(0, 10, (16,))
for step in range(4):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(net(x), y)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.6f}")
