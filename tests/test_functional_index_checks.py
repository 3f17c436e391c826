"""Class-index and embedding-index range checks read a full-size reshape/permute view's root (no wait for
the view's queued program); the errors stay torch's, in the view's own element order."""
import numpy as np
import pytest
import torch

import torchlike


def _views(T, y):
    return [y.view(-1), y.t().reshape(-1), y[1], y.permute(1, 0).flatten()]


@pytest.mark.parametrize("which", range(4))
@pytest.mark.parametrize("vals", [[[0, 1, 2], [3, 4, 0]], [[0, 7, 2], [3, -4, 9]], [[-1, 1, 8], [2, 2, 2]]])
def test_cross_entropy_and_embedding_range_checks_through_views(which, vals):
    outs = []
    for T in (torch, torchlike):
        y = T.tensor(vals)
        v = _views(T, y)[which]
        logits = T.tensor(np.linspace(-1, 1, v.numel() * 5, dtype=np.float32).reshape(v.numel(), 5))
        row = []
        for f in (lambda: T.nn.functional.cross_entropy(logits, v, ignore_index=-1).item(),
                  lambda: T.nn.functional.embedding(v, T.ones(5, 2)).sum().item()):
            try:
                row.append(("ok", round(f(), 5)))
            except Exception as e:  # noqa: BLE001 (the type and message are compared with torch's)
                row.append((type(e).__name__, str(e)))
        outs.append(row)
    assert outs[1] == outs[0]
