"""The classes of errors scripts catch or print, at torch's paths: linalg's _LinAlgError (torch._C), the compiler's
Unsupported (torch._dynamo.exc), the zip reader's error for a truncated checkpoint."""
import os
import tempfile

import torch


def show(f, message=True):
    try:
        f()
    except Exception as e:
        print(type(e).__module__, type(e).__qualname__, [c.__name__ for c in type(e).__mro__][:4],
              str(e)[:90] if message else "")


@torch.compile(fullgraph=True)
def branchy(x):
    return x + 1 if x.sum() > 0 else x - 1


show(lambda: torch.linalg.cholesky(-torch.eye(2)))
show(lambda: torch.linalg.inv(torch.zeros(2, 2)))
show(lambda: branchy(torch.ones(2)), message=False)  # (the graph-break explanation differs)
path = os.path.join(tempfile.mkdtemp(), "cut.pt")
torch.save(torch.arange(10.0), path)
data = open(path, "rb").read()
open(path, "wb").write(data[:len(data) // 2])
show(lambda: torch.load(path))
print(torch.linalg.LinAlgError, torch._dynamo.exc.Unsupported, torch._dynamo.exc.TorchDynamoException)
