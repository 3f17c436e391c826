"""torchcde: interpolation coefficients (natural cubic with missing values, linear, rectilinear, Hermite cubic with
backward differences) and their CubicSpline/LinearInterpolation evaluate/derivative; cdeint with fixed-grid (rk4)
and adaptive (dopri5) solvers, backpropagation and the adjoint method; and a small Neural CDE classifier (the
README's spirals example, shrunk) trained a few Adam steps, evaluated, saved and reloaded.  torchcde's logsignature
features need signatory (a C++ torch extension), so they are left out.  Prints one line per measurement; run the
same script with real torch and under ``python -m torchlike run`` and compare.
"""
import io
import math

import torch
import torchcde

torch.manual_seed(0)


def r(values, n=5):
    return [round(float(v), n) + 0.0 for v in torch.as_tensor(values).detach().flatten()]


# ---- interpolation -------------------------------------------------------------------------------------------
t = torch.linspace(0.0, 3.0, 7)
x = torch.stack([t, torch.sin(t), torch.cos(2 * t)], dim=-1).unsqueeze(0).repeat(2, 1, 1)  # (2, 7, 3)
x[1] = x[1] * 0.5
missing = x.clone()
missing[0, 2, 1] = float("nan")
missing[1, 4:6, 2] = float("nan")

coeffs = torchcde.natural_cubic_coeffs(missing, t=t)
spline = torchcde.CubicSpline(coeffs, t=t)
print("cubic coeffs", tuple(coeffs.shape), coeffs.dtype, r(coeffs.sum(), 4), bool(torch.isnan(coeffs).any()))
print("cubic interval", r(spline.interval), len(spline.grid_points))
probe = torch.tensor([0.1, 1.3, 2.25, 3.0])
print("cubic evaluate", r(torch.stack([spline.evaluate(s) for s in probe])[:, :, 1:].sum((0, 2))))
print("cubic derivative", r(torch.stack([spline.derivative(s) for s in probe]).sum((0, 2))))
print("cubic fills missing", r(spline.evaluate(t[2])[0, 1]), r(spline.evaluate(t[5])[1, 2]))

lin = torchcde.linear_interpolation_coeffs(missing, t=t)
lspline = torchcde.LinearInterpolation(lin, t=t)
print("linear coeffs", tuple(lin.shape), r(lin[0, 2, 1]), r(lin[1, 4:6, 2]))
print("linear evaluate", r(lspline.evaluate(torch.tensor(1.1))), r(lspline.derivative(torch.tensor(1.1))))

# rectilinear: time is a channel; the interpolation moves one channel at a time
rect = torchcde.linear_interpolation_coeffs(missing, rectilinear=0)
rspline = torchcde.LinearInterpolation(rect)
print("rectilinear", tuple(rect.shape), r(rect.sum(), 4), r(rspline.interval), r(rspline.evaluate(3.5)))

herm = torchcde.hermite_cubic_coefficients_with_backward_differences(x, t=t)
hspline = torchcde.CubicSpline(herm, t=t)
print("hermite", tuple(herm.shape), r(hspline.evaluate(torch.tensor(1.7))), r(hspline.derivative(torch.tensor(0.4))))


# ---- cdeint --------------------------------------------------------------------------------------------------
class CDEFunc(torch.nn.Module):
    def __init__(self, input_channels, hidden_channels):
        super().__init__()
        self.input_channels = input_channels
        self.hidden_channels = hidden_channels
        self.linear1 = torch.nn.Linear(hidden_channels, 16)
        self.linear2 = torch.nn.Linear(16, input_channels * hidden_channels)
        self.nfe = 0

    def forward(self, t, z):
        self.nfe += 1
        z = self.linear1(z).relu()
        z = self.linear2(z).tanh()
        return z.view(z.size(0), self.hidden_channels, self.input_channels)


class NeuralCDE(torch.nn.Module):
    def __init__(self, input_channels, hidden_channels, output_channels, interpolation="cubic"):
        super().__init__()
        self.func = CDEFunc(input_channels, hidden_channels)
        self.initial = torch.nn.Linear(input_channels, hidden_channels)
        self.readout = torch.nn.Linear(hidden_channels, output_channels)
        self.interpolation = interpolation

    def forward(self, coeffs, **kwargs):
        if self.interpolation == "cubic":
            X = torchcde.CubicSpline(coeffs)
        else:
            X = torchcde.LinearInterpolation(coeffs)
        z0 = self.initial(X.evaluate(X.interval[0]))
        z_T = torchcde.cdeint(X=X, z0=z0, func=self.func, t=X.interval, **kwargs)
        return self.readout(z_T[:, 1])


def spirals(num, length=24):
    tt = torch.linspace(0.0, 4 * math.pi, length)
    start = torch.rand(num) * 2 * math.pi
    xp = torch.cos(start.unsqueeze(1) + tt.unsqueeze(0)) / (1 + 0.5 * tt)
    yp = torch.sin(start.unsqueeze(1) + tt.unsqueeze(0)) / (1 + 0.5 * tt)
    xp[: num // 2], yp[: num // 2] = yp[: num // 2], xp[: num // 2]
    xy = torch.stack([tt.unsqueeze(0).expand(num, length), xp, yp], dim=2)
    y = torch.zeros(num)
    y[: num // 2] = 1
    perm = torch.randperm(num)
    # rounded to 4 decimals: XLA's cos/sin differ from torch's in the last ulp, which would otherwise reach every
    # later line (and flip an adaptive solver's accept/reject decisions)
    return (xy[perm] * 1e4).round() / 1e4, y[perm]


train_X, train_y = spirals(32)
test_X, test_y = spirals(16)
print("data", tuple(train_X.shape), r(train_X.sum(), 3), r(train_y.sum()))

torch.manual_seed(1)
model = NeuralCDE(input_channels=3, hidden_channels=8, output_channels=1)
train_coeffs = torchcde.hermite_cubic_coefficients_with_backward_differences(train_X)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(4):
    pred = model(train_coeffs, method="rk4", options=dict(step_size=1.0)).squeeze(-1)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(pred, train_y)
    optimizer.zero_grad()
    loss.backward()
    gnorm = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()
    optimizer.step()
    print(f"train step {step} loss {loss.item():.5f} grad norm {gnorm.item():.5f}")
print("function evaluations", model.func.nfe)

test_coeffs = torchcde.hermite_cubic_coefficients_with_backward_differences(test_X)
with torch.no_grad():
    pred = model(test_coeffs, method="rk4", options=dict(step_size=1.0)).squeeze(-1)
acc = ((torch.sigmoid(pred) > 0.5).float() == test_y).float().mean()
print("test logits", r(pred[:4], 4), "accuracy", r(acc, 4))

# the same model with an adaptive solver on a smooth (natural cubic) control: backpropagation through dopri5
# against the adjoint method.  An adaptive solver's accept/reject decisions flip under a 1-ulp change of the
# vector field (torch's own gradient moves by ~1% when one weight moves by 1e-7), so these print coarsely.
smooth_coeffs = torchcde.natural_cubic_coeffs(test_X[:4, :12])
model.zero_grad()
out = model(smooth_coeffs, method="dopri5", rtol=1e-4, atol=1e-6)
out.sum().backward()
g_direct = torch.cat([p.grad.flatten() for p in model.parameters()])
model.zero_grad()
out_adj = model(smooth_coeffs, method="dopri5", rtol=1e-4, atol=1e-6, adjoint=True,
                adjoint_params=tuple(model.parameters()))
out_adj.sum().backward()
g_adj = torch.cat([p.grad.flatten() for p in model.parameters()])
print("dopri5 out", r(out.squeeze(-1), 3), "adjoint out", r(out_adj.squeeze(-1), 3))
print("dopri5 grad norm", r(g_direct.norm(), 1), "adjoint agrees",
      bool((g_direct - g_adj).norm() < 0.05 * g_direct.norm()))

# a linear-interpolation CDE evaluated at every observation time (the control's grid points)
lin_model = NeuralCDE(3, 8, 1, interpolation="linear")
lin_coeffs = torchcde.linear_interpolation_coeffs(test_X[:3])
X = torchcde.LinearInterpolation(lin_coeffs)
z0 = lin_model.initial(X.evaluate(X.interval[0]))
zt = torchcde.cdeint(X=X, z0=z0, func=lin_model.func, t=X.grid_points, method="rk4", options=dict(step_size=1.0))
print("linear cde path", tuple(zt.shape), r(zt[:, -1].sum(), 4), r(zt[:, 10].sum(), 4))

# save / load
buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
buffer.seek(0)
reloaded = NeuralCDE(3, 8, 1)
reloaded.load_state_dict(torch.load(buffer))
with torch.no_grad():
    again = reloaded(test_coeffs, method="rk4", options=dict(step_size=1.0)).squeeze(-1)
print("reload", sorted(reloaded.state_dict())[:3], bool(torch.equal(again, pred)))
