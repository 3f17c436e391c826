"""torch.func tutorials not covered elsewhere: Neural Tangent Kernels (jacrev of functional_call, the
Jacobian-contraction NTK and the NTK-vector-products method with vjp/jvp, full/trace/diagonal) and
Extending torch.func with autograd.Function (setup_context, save_for_backward/save_for_forward, a vmap
staticmethod, generate_vmap_rule=True, jvp staticmethod, once_differentiable-free higher order grads,
and the same Functions under grad, vmap, jacrev, jacfwd and hessian)."""
import numpy as np
import torch
import torch.nn as nn
from torch.func import functional_call, grad, jacfwd, jacrev, jvp, vjp, vmap

torch.manual_seed(0)
device = "cpu"


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, (3, 3))
        self.conv2 = nn.Conv2d(8, 8, (3, 3))
        self.conv3 = nn.Conv2d(8, 8, (3, 3))
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        x = self.conv1(x)
        x = x.relu()
        x = self.conv2(x)
        x = x.relu()
        x = self.conv3(x)
        x = x.flatten(1)
        x = self.fc(x)
        return x


x_train = torch.randn(6, 3, 7, 7, device=device)
x_test = torch.randn(4, 3, 7, 7, device=device)
net = CNN().to(device)
params = {k: v.detach() for k, v in net.named_parameters()}


def fnet_single(params, x):
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)


def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2, compute="full"):
    jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
    jac1 = jac1.values()
    jac1 = [j.flatten(2) for j in jac1]
    jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
    jac2 = jac2.values()
    jac2 = [j.flatten(2) for j in jac2]
    if compute == "full":
        einsum_expr = "Naf,Mbf->NMab"
    elif compute == "trace":
        einsum_expr = "Naf,Maf->NM"
    elif compute == "diagonal":
        einsum_expr = "Naf,Maf->NMa"
    else:
        assert False
    result = torch.stack([torch.einsum(einsum_expr, j1, j2) for j1, j2 in zip(jac1, jac2)])
    result = result.sum(0)
    return result


result = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test)
print("ntk full shape", tuple(result.shape))
print("ntk full sum", round(result.sum().item(), 3))
print("ntk full [0,0]", np.round(result[0, 0].numpy(), 3).tolist())
trace = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, "trace")
print("ntk trace shape", tuple(trace.shape))
print("ntk trace", np.round(trace[0].numpy(), 3).tolist())
diag = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, "diagonal")
print("ntk diagonal shape", tuple(diag.shape))
print("trace == diag.sum", torch.allclose(trace, diag.sum(-1), rtol=1e-4, atol=1e-4))


def empirical_ntk_ntk_vps(func, params, x1, x2, compute="full"):
    def get_ntk(x1, x2):
        def func_x1(params):
            return func(params, x1)

        def func_x2(params):
            return func(params, x2)

        output, vjp_fn = vjp(func_x1, params)

        def get_ntk_slice(vec):
            vjps = vjp_fn(vec)
            _, jvps = jvp(func_x2, (params,), vjps)
            return jvps

        basis = torch.eye(output.numel(), dtype=output.dtype, device=output.device).view(output.numel(), -1)
        return vmap(get_ntk_slice)(basis)

    result = vmap(vmap(get_ntk, (None, 0)), (0, None))(x1, x2)
    if compute == "full":
        return result
    if compute == "trace":
        return torch.einsum("NMKK->NM", result)
    if compute == "diagonal":
        return torch.einsum("NMKK->NMK", result)


result_from_ntk_vps = empirical_ntk_ntk_vps(fnet_single, params, x_train, x_test)
print("ntk vps shape", tuple(result_from_ntk_vps.shape))
print("ntk vps == jacobian contraction", torch.allclose(result, result_from_ntk_vps, atol=1e-4, rtol=1e-4))
trace_vps = empirical_ntk_ntk_vps(fnet_single, params, x_train, x_test, "trace")
print("ntk vps trace", np.round(trace_vps[1].numpy(), 3).tolist())

# ---------------------------------------------------------------- Extending torch.func with autograd.Function


def to_numpy(tensor):
    return tensor.cpu().numpy()


class NumpySort(torch.autograd.Function):
    @staticmethod
    def forward(x, dim):
        device = x.device
        x = to_numpy(x)
        ind = np.argsort(x, axis=dim)
        ind_inv = np.argsort(ind, axis=dim)
        result = np.take_along_axis(x, ind, axis=dim)
        return (
            torch.tensor(result, device=device),
            torch.tensor(ind, device=device),
            torch.tensor(ind_inv, device=device),
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim = inputs
        _, ind, ind_inv = output
        ctx.mark_non_differentiable(ind, ind_inv)
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output, _0, _1):
        ind, ind_inv = ctx.saved_tensors
        return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None

    @staticmethod
    def vmap(info, in_dims, x, dim):
        x_bdim, _ = in_dims
        x = x.movedim(x_bdim, 0)
        dim = dim if dim >= 0 else dim + x.dim() - 1
        return NumpySort.apply(x, dim + 1), (0, 0, 0)


class NumpyTake(torch.autograd.Function):
    @staticmethod
    def forward(x, ind, ind_inv, dim):
        device = x.device
        x = to_numpy(x)
        ind = to_numpy(ind)
        return torch.tensor(np.take_along_axis(x, ind, dim), device=device)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, ind, ind_inv, dim = inputs
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output):
        ind, ind_inv = ctx.saved_tensors
        result = NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim)
        return result, None, None, None

    @staticmethod
    def vmap(info, in_dims, x, ind, ind_inv, dim):
        x_bdim, ind_bdim, ind_inv_bdim, _ = in_dims
        logical_dim = x.dim() if x_bdim is None else x.dim() - 1
        dim = dim if dim >= 0 else dim + logical_dim

        def maybe_expand_bdim_at_front(x, x_bdim):
            if x_bdim is None:
                return x.expand(info.batch_size, *x.shape)
            return x.movedim(x_bdim, 0)

        x = maybe_expand_bdim_at_front(x, x_bdim)
        ind = maybe_expand_bdim_at_front(ind, ind_bdim)
        ind_inv = maybe_expand_bdim_at_front(ind_inv, ind_inv_bdim)
        return NumpyTake.apply(x, ind, ind_inv, dim + 1), 0


def numpy_sort(x, dim=-1):
    result, _, _ = NumpySort.apply(x, dim)
    return result


x = torch.randn(2, 3)
result = numpy_sort(x)
print("numpy_sort", torch.allclose(result, x.sort().values))
x = torch.randn(2, 3)
gx = grad(lambda x: numpy_sort(x).sum())(x)
print("grad of numpy_sort", gx.tolist())
x = torch.randn(4, 3)
result = vmap(numpy_sort)(x)
print("vmap numpy_sort", torch.allclose(result, numpy_sort(x, 1)))
x = torch.randn(2, 3)
weights = torch.tensor([1.0, 2.0, 3.0])
gx = grad(lambda x: (numpy_sort(x) * weights).sum())(x)
print("weighted grad matches sort", torch.allclose(gx, torch.gather(weights.expand(2, 3), 1, x.argsort().argsort())))
x = torch.randn(3, 4)
print("vmap(grad) numpy_sort", vmap(grad(lambda x: (numpy_sort(x) * torch.arange(4.0)).sum()))(x).tolist())
print("jacrev numpy_sort", jacrev(numpy_sort)(torch.tensor([3.0, 1.0, 2.0])).tolist())
ordinary = torch.randn(3, requires_grad=True)
out = numpy_sort(ordinary)
out.backward(torch.tensor([1.0, 10.0, 100.0]))
print("backward through numpy_sort", ordinary.grad.tolist() == torch.tensor([1.0, 10.0, 100.0])[
    ordinary.detach().argsort().argsort()].tolist())


class MyCube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        result = x ** 3
        dx = 3 * x ** 2
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result


def my_cube(x):
    result, _ = MyCube.apply(x)
    return result


x = torch.randn(3)
print("vmap generate_vmap_rule", torch.allclose(vmap(my_cube)(x), x ** 3))
x = torch.tensor(1.5)
print("grad my_cube", round(grad(my_cube)(x).item(), 4))
print("grad grad my_cube", round(grad(grad(my_cube))(x).item(), 4))
xs = torch.tensor([0.5, -1.0, 2.0])
print("vmap grad my_cube", vmap(grad(my_cube))(xs).tolist())
print("jacrev jacrev my_cube", jacrev(jacrev(lambda t: my_cube(t).sum()))(xs).tolist())


class MySin(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x.sin()

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)

    @staticmethod
    def backward(ctx, gy):
        x, = ctx.saved_tensors
        return gy * x.cos()

    @staticmethod
    def jvp(ctx, x_t):
        x, = ctx.saved_tensors
        return x_t * x.cos()


xs = torch.tensor([0.1, 0.7, 1.3])
print("jvp MySin", [round(v, 5) for v in jvp(MySin.apply, (xs,), (torch.ones(3),))[1].tolist()])
print("jacfwd MySin diag", [round(v, 5) for v in jacfwd(MySin.apply)(xs).diagonal().tolist()])
print("jacrev MySin diag", [round(v, 5) for v in jacrev(MySin.apply)(xs).diagonal().tolist()])
print("vmap jacfwd MySin", [round(v, 5) for v in vmap(jacfwd(MySin.apply))(xs).tolist()])


class ScaleBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


x = torch.randn(3, requires_grad=True)
y = ScaleBy.apply(x, 2.5)
y.sum().backward()
print("old-style Function grad", x.grad.tolist())
try:
    vmap(lambda t: ScaleBy.apply(t, 2.0))(torch.randn(2, 3))
    print("old-style under vmap: no error")
except RuntimeError as e:
    print("old-style under vmap RuntimeError", "setup_context" in str(e))
