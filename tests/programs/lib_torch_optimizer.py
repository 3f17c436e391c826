"""torch-optimizer: ten third-party optimizers on the same tiny regression problem; final losses."""
import torch
import torch.nn as nn
import torch_optimizer as optim

names = ["AdaBelief", "Adafactor", "Adahessian", "Lamb", "Lookahead", "MADGRAD", "RAdam", "Ranger", "Shampoo",
         "Yogi"]
x = torch.randn(32, 4, generator=torch.Generator().manual_seed(0))
y = (x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])).tanh()
for name in names:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    if name == "Lookahead":
        opt = optim.Lookahead(optim.Yogi(model.parameters(), lr=0.01), k=3, alpha=0.5)
    elif name in ("A2GradExp", "Adafactor"):
        opt = getattr(optim, name)(model.parameters())
    else:
        opt = getattr(optim, name)(model.parameters(), lr=0.01)
    losses = []
    for _ in range(4):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward(create_graph=name == "Adahessian")
        opt.step()
        losses.append(loss.item())
    print(name, " ".join(f"{v:.6f}" for v in losses))
