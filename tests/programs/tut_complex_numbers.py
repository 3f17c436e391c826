"""The Complex Numbers note/tutorial: creating complex tensors, view_as_real/view_as_complex (views that
alias), real/imag views, angle/abs/polar, linear algebra and FFT on complex data, complex autograd
(conjugate Wirtinger gradients), optimizers on complex parameters, and serialization."""
import io
import math

import torch

torch.manual_seed(0)
x = torch.randn(2, 2, dtype=torch.cfloat)
print(x)
y = torch.randn(2, 2, dtype=torch.cdouble)
print(y.dtype, y.real.dtype, x.is_complex(), torch.is_complex(x.real))
y = torch.view_as_real(x)
print(y, y.shape, y.stride())
print(torch.view_as_complex(y))
y[0, 0, 1] = 10.0
print(x[0, 0])
print(x.real, x.imag)
x.imag.mul_(0.5)
x.real[1] = 0
print(x)
x1 = torch.tensor([3j, 4 + 4j])
print(x1.abs(), x1.angle())
print(torch.polar(torch.tensor([1.0, 2.0]), torch.tensor([0.0, math.pi / 2])))
# (x1.conj().is_conj() is True in torch, False here: torchlike has no lazy conjugate bit)
print(x1.conj(), x1.conj().resolve_conj().is_conj())
A = torch.randn(3, 3, dtype=torch.cfloat)
b = torch.randn(3, dtype=torch.cfloat)
sol = torch.linalg.solve(A, b)
print(torch.allclose(A @ sol, b, atol=1e-5), torch.linalg.matrix_norm(A).dtype)
print(torch.linalg.eigvals(torch.tensor([[0.0, -1.0], [1.0, 0.0]])))
sig = torch.sin(torch.arange(8) * 2 * math.pi / 8)
F = torch.fft.fft(sig)
print(F.abs().round(decimals=4), torch.fft.ifft(F).real.round(decimals=4))
print(torch.fft.rfft(sig).shape, torch.fft.fftfreq(8))
z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
loss = (z * z.conj()).real.sum()
loss.backward()
print(z.grad)
z.grad = None
(z.abs() ** 2).sum().backward()
print(z.grad)
w = torch.randn(3, dtype=torch.cfloat, requires_grad=True)
opt = torch.optim.Adam([w], lr=0.1)
target = torch.tensor([1 + 1j, -1j, 2.0 + 0j])
for step in range(50):
    opt.zero_grad()
    l = (w - target).abs().pow(2).sum()
    l.backward()
    opt.step()
print(f"{l.item():.4f}", w.detach().abs().round(decimals=3))
opt = torch.optim.SGD([w], lr=0.1, momentum=0.5)
for step in range(5):
    opt.zero_grad()
    (w - target).abs().pow(2).sum().backward()
    opt.step()
print(torch.view_as_real(w.detach()).round(decimals=3))
buf = io.BytesIO()
try:
    torch.save({"x": x, "y": torch.view_as_real(x)}, buf)
except RuntimeError as e:
    print("RuntimeError:", e)
buf = io.BytesIO()
torch.save({"re": x.real, "im": x.imag}, buf)
buf.seek(0)
parts = torch.load(buf)
buf = io.BytesIO()
torch.save({"x": x}, buf)
buf.seek(0)
loaded = torch.load(buf)
print(loaded["x"], torch.equal(loaded["x"].real, parts["re"]), parts["im"].dtype)
r = torch.view_as_real(loaded["x"])
r[0, 0, 0] = -7.0
print(loaded["x"][0, 0], x.view(torch.float32).shape)
print(torch.tensor([1 + 1j], dtype=torch.complex64) * 2.5, torch.ones(2, dtype=torch.complex128) + 1)
print(torch.view_as_real(torch.zeros(2, dtype=torch.complex64)).uniform_())
