"""The demo: fit a cubic polynomial to sin(x) with define-by-run autograd and plain SGD.

    python -m torchlike demo
"""
from __future__ import annotations

import math

import torchlike as torch


def main(argv=()):
    torch.manual_seed(0)
    x = torch.linspace(-math.pi, math.pi, 2000)
    y = torch.sin(x)
    coeffs = [torch.zeros((), requires_grad=True) for _ in range(4)]
    lr = 1e-6
    first = None
    for step in range(2001):
        a, b, c, d = coeffs
        pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (pred - y).pow(2).sum()
        if step % 250 == 0:
            print(f"step {step:5d}  loss {loss.item():12.4f}")
            first = first if first is not None else loss.item()
        loss.backward()
        with torch.no_grad():
            for p in coeffs:
                p -= lr * p.grad
                p.grad = None
    a, b, c, d = (p.item() for p in coeffs)
    print(f"fit: y = {a:.4f} + {b:.4f} x + {c:.4f} x^2 + {d:.4f} x^3   (loss {first:.1f} -> {loss.item():.1f})")


if __name__ == "__main__":
    main()
