"""linear_operator's LinearOperator (a tensor-like that is not a Tensor) passed to torch functions, which
dispatch to its ``__torch_function__``; the first call is what switches torchlike's protocol on."""
import torch
from linear_operator.operators import DenseLinearOperator, DiagLinearOperator

torch.manual_seed(0)
diag = DiagLinearOperator(torch.tensor([1.0, 2.0, 3.0]))
rhs = torch.randn(3, 2)
r = torch.matmul(diag, rhs)
print("matmul", type(r).__name__, [f"{v:.4f}" for v in r.flatten().tolist()])
dense = DenseLinearOperator(torch.randn(3, 3))
s = torch.add(diag, dense)
print("add", type(s).__name__, [f"{v:.4f}" for v in s.to_dense().flatten().tolist()])
print("mul", type(torch.mul(diag, 2.0)).__name__, torch.mul(diag, 2.0).to_dense().diagonal().tolist())
print("diagonal", torch.diagonal(dense, dim1=-2, dim2=-1).shape, type(torch.diagonal(diag)).__name__)
print("matmul @", (diag @ rhs).shape, "transpose", torch.transpose(dense, -1, -2).shape)
print("logdet", f"{torch.logdet(diag).item():.4f}", "sum", f"{torch.sum(dense.to_dense()).item():.4f}")
