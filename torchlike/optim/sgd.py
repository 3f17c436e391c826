"""torch.optim.SGD."""
from __future__ import annotations

from ..sparse import _ops as _sp
from .optimizer import _FusedOptimizer, _float, c, check_lr, check_options, not_negative, not_negative_f, required

__all__ = ["SGD"]


def _sgd_kernel(hp, p, g, st, maximize, wd, momentum, nesterov):
    if maximize:
        g = -g
    if wd:
        g = g + c(hp["weight_decay"], p) * p
    new = {}
    if momentum:
        buf = st.get("momentum_buffer")
        if buf is None:
            buf = g
        else:
            buf = buf * c(hp["momentum"], p) + c(1 - hp["dampening"], p) * g
        new["momentum_buffer"] = buf
        g = g + c(hp["momentum"], p) * buf if nesterov else buf
    return p + c(-hp["lr"], p) * g, new


class SGD(_FusedOptimizer):
    """Stochastic gradient descent (optionally with momentum), exactly as torch.optim.SGD.

    >>> import torchlike as torch
    >>> p = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.SGD([p], lr=0.5, momentum=0.9)
    >>> p.grad = torch.tensor([1.0]); opt.step(); opt.step()
    >>> p
    tensor([-0.4500], requires_grad=True)
    """

    _name = "SGD"
    _complex_as_real = False  # torch's SGD works on complex tensors directly
    _kernel = staticmethod(_sgd_kernel)

    _group_fallbacks = {"nesterov": False, "maximize": False, "foreach": None, "differentiable": False,
                        "fused": False}

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr is not required:
            check_lr(lr, sgd=True)
        check_options(("momentum value", momentum, not_negative), ("weight_decay value", weight_decay, not_negative_f))
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        options = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                       maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        super().__init__(params, options)
        self._accept_fused(fused, foreach, differentiable, device_dtype_check=True)

    def _init_state(self, p, group):
        return {}

    def _check_grad(self, p, group):
        if p.grad.is_sparse and group.get("fused"):
            raise RuntimeError("`_fused_sgd` does not support sparse gradients")

    def _sparse_update(self, p, group):
        """torch's step for a sparse ``.grad``: the momentum buffer is a sparse tensor (the first gradient's
        clone, then ``buf * momentum + (1 - dampening) * grad``), weight decay is torch's
        ``add(sparse, dense)`` error."""
        g = p.grad.detach()
        if group["maximize"]:
            g = _sp.mul(g, -1)
        wd, momentum = _float(group["weight_decay"]), _float(group["momentum"])
        if wd != 0:
            g = _sp.add(g, p.detach(), alpha=wd)  # raises torch's error
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = g.clone()
            elif buf.is_sparse:
                buf = _sp.add(_sp.mul(buf, momentum), g, alpha=1 - _float(group["dampening"]))
            else:
                buf = _sp.add(buf * momentum, g, alpha=1 - _float(group["dampening"]))
            state["momentum_buffer"] = buf
            g = _sp.add(g, buf, alpha=momentum) if group["nesterov"] else buf
        p._set_value(_sp.add(p.detach(), g, alpha=-_float(group["lr"]))._value)

    def _hparams(self, group):
        return dict(lr=_float(group["lr"]), weight_decay=_float(group["weight_decay"]),
                    momentum=_float(group["momentum"]), dampening=_float(group["dampening"]))

    def _statics(self, group):
        return (("maximize", bool(group["maximize"])), ("wd", _float(group["weight_decay"]) != 0),
                ("momentum", _float(group["momentum"]) != 0), ("nesterov", bool(group["nesterov"])))
