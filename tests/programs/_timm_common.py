"""Shared by the timm programs (tests/programs/lib_timm_*.py): torchvision's operator schemas on a CPU-only torch
before timm imports it (tests/programs/_torchvision_schemas.py), the rounding of printed values, and the per-model
check of ``timm.create_model``.
"""
import torch
import torch.nn.functional as F
from _torchvision_schemas import load_or_define

_LIB = load_or_define()  # (kept alive while the program runs)

import timm  # noqa: E402


def r(x, n=4):
    return float(f"{float(x):.{n}g}")


def rl(t, k=4):
    return [r(v) for v in t.detach().flatten()[:k]]


def check_models(models, checkpointing=()):
    """For each ``(name, image size, create_model keywords)``, from the same seed: parameter count and
    ``default_cfg`` fields, an eval forward, one training forward/backward (loss, gradient norm), for the names in
    ``checkpointing`` the same step with ``set_grad_checkpointing`` (same loss and gradients), and
    ``reset_classifier``."""
    for name, size, kw in models:
        torch.manual_seed(0)
        m = timm.create_model(name, pretrained=False, num_classes=5, **kw)
        x = torch.randn(4, 3, size, size)
        y = torch.tensor([1, 3, 0, 4])
        cfg = m.default_cfg
        print(name, "params", sum(p.numel() for p in m.parameters()), "cfg", cfg.get("input_size"),
              cfg.get("classifier"), cfg.get("mean"))
        m.eval()
        with torch.no_grad():
            out = m(x)
        print(name, "eval", list(out.shape), rl(out))
        m.train()
        loss = F.cross_entropy(m(x), y)
        loss.backward()
        gn = torch.sqrt(sum((p.grad.double() ** 2).sum() for p in m.parameters() if p.grad is not None))
        print(name, "train loss", r(loss.detach()), "grad norm", r(gn))
        if name in checkpointing:
            g0 = [p.grad.clone() for p in m.parameters()]
            m.zero_grad()
            m.set_grad_checkpointing(True)
            torch.manual_seed(1)
            loss2 = F.cross_entropy(m(x), y)
            loss2.backward()
            same = max(float((p.grad - g).abs().max()) for p, g in zip(m.parameters(), g0))
            print(name, "grad checkpointing", r(loss2.detach()), same < 1e-4)
        m.reset_classifier(7)
        m.eval()
        with torch.no_grad():
            print(name, "reset_classifier", list(m(x).shape), m.num_classes, type(m.get_classifier()).__name__)
