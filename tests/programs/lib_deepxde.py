"""DeepXDE on its PyTorch backend (run with DDE_BACKEND=pytorch): a physics-informed network for the 1-D Poisson
problem -u'' = pi^2 sin(pi x) on [-1, 1] with u(-1) = u(1) = 0 (solution sin(pi x)): Interval geometry, DirichletBC,
PDE data with seeded training points, an FNN, Adam then a few L-BFGS iterations, losses from the loss history,
predictions and the PDE residual through model.predict(operator=...), dde.grad.jacobian/hessian (second-order
autograd) and an L2 relative error metric. Printed rounded; runs are short so float rounding cannot diverge."""
import numpy as np

import deepxde as dde
import torch


def r(x, n=4):
    return round(float(x), n)


dde.config.set_random_seed(0)
print("backend", dde.backend.backend_name, dde.config.real(torch) if hasattr(dde.config, "real") else "")


def pde(x, y):
    dy_xx = dde.grad.hessian(y, x)
    return -dy_xx - np.pi ** 2 * torch.sin(np.pi * x)


def solution(x):
    return np.sin(np.pi * x)


geom = dde.geometry.Interval(-1, 1)
bc = dde.icbc.DirichletBC(geom, lambda x: 0, lambda x, on_boundary: on_boundary)
data = dde.data.PDE(geom, pde, bc, num_domain=16, num_boundary=2, solution=solution, num_test=20,
                    train_distribution="pseudo")
print("data", data.train_x.shape, data.train_x_bc.shape, data.test_x.shape,
      [r(v) for v in np.sort(data.train_x[:, 0])[:4]])

net = dde.nn.FNN([1] + [16] * 2 + [1], "tanh", "Glorot uniform")
print("net", sum(p.numel() for p in net.parameters()), type(net.linears).__name__, len(net.linears))
model = dde.Model(data, net)
model.compile("adam", lr=1e-3, metrics=["l2 relative error"], verbose=0)
losshistory, train_state = model.train(iterations=60, display_every=20, verbose=0)
for step, loss, test, metric in zip(losshistory.steps, losshistory.loss_train, losshistory.loss_test,
                                    losshistory.metrics_test):
    print("adam", step, [r(v) for v in loss], [r(v) for v in test], [r(v) for v in metric])
print("best", train_state.best_step, r(train_state.best_loss_train))

dde.optimizers.config.set_LBFGS_options(maxiter=15)
# on the torch backend deepxde fixes the iterations per optimizer step at import (1000); keep the run short
dde.optimizers.config.LBFGS_options.update(iter_per_step=5, fun_per_step=8)
model.compile("L-BFGS", metrics=["l2 relative error"], verbose=0)
losshistory, train_state = model.train(verbose=0)
state = model.opt.state_dict()["state"][0]
print("lbfgs", losshistory.steps[-4:], [[r(v) for v in loss] for loss in losshistory.loss_train[-4:]],
      state["n_iter"], state["func_evals"])

x = np.linspace(-1, 1, 5)[:, None].astype(np.float32)
y = model.predict(x)
print("predict", y.shape, y.dtype, [r(v, 3) for v in y[:, 0]])
res = model.predict(x, operator=pde)
print("residual", res.shape, [r(v, 2) for v in res[:, 0]])

# first and second derivatives of the trained network through dde.grad
xt = torch.tensor(x, requires_grad=True)
yt = net(xt)
dy = dde.grad.jacobian(yt, xt, i=0, j=0)
d2y = dde.grad.hessian(yt, xt, component=0, i=0, j=0)
print("grads", tuple(dy.shape), [r(v, 3) for v in dy[:, 0]], [r(v, 2) for v in d2y[:, 0]])
dde.grad.clear()
print("l2 error", r(dde.metrics.l2_relative_error(solution(x), y), 3))
