"""A Flax NNX layer inside a torchlike model, trained by a torchlike optimizer.

``torchlike.nn.from_flax`` wraps the NNX module: its ``nnx.Param``s become ``nn.Parameter``s (in
``named_parameters()`` and ``state_dict()``), batch statistics become buffers, and eager backward and
``torchlike.compile`` go through it like any other layer.

Run: python examples/flax_layer_in_model.py
"""
import numpy as np
from flax import nnx

import torchlike as torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Linear(4, 16)
        self.flax_block = torch.nn.from_flax(nnx.Sequential(nnx.Linear(16, 16, rngs=nnx.Rngs(0)),
                                                            nnx.LayerNorm(16, rngs=nnx.Rngs(0))))
        self.head = torch.nn.Linear(16, 3)

    def forward(self, x):
        return self.head(torch.relu(self.flax_block(torch.relu(self.embed(x)))))


def main(steps=60):
    torch.manual_seed(0)
    rng = np.random.RandomState(0)
    xs = rng.randn(128, 4).astype(np.float32)
    x, y = torch.from_numpy(xs), torch.from_numpy((xs @ rng.randn(4, 3)).argmax(1))
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert "flax_block.layers.0.kernel" in names and "flax_block.layers.1.scale" in names
    opt = torch.optim.AdamW(net.parameters(), lr=1e-2)

    @torch.compile
    def train_step(xb, yb):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(xb), yb)
        loss.backward()
        opt.step()
        return loss

    losses = [train_step(x, y).item() for _ in range(steps)]
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    assert losses[-1] < 0.3 * losses[0]
    return losses


if __name__ == "__main__":
    main()
