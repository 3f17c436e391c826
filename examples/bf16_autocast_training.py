"""Mixed-precision training with CPU autocast to bfloat16.

Inside ``torch.autocast("cpu", dtype=torch.bfloat16)`` linear layers and matmuls run in bfloat16 while the
loss is computed in float32; parameters and their gradients stay float32.

Run: python examples/bf16_autocast_training.py
"""
import torchlike as torch


def main(steps=80):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.GELU(), torch.nn.Linear(64, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(256, 16)
    y = (x[:, :4] * 2).argmax(1)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x)
            assert logits.dtype == torch.bfloat16
            loss = torch.nn.functional.cross_entropy(logits, y)
            assert loss.dtype == torch.float32
        loss.backward()
        assert model[0].weight.grad.dtype == torch.float32
        opt.step()
        losses.append(loss.item())
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    assert losses[-1] < 0.5 * losses[0]
    return losses


if __name__ == "__main__":
    main()
