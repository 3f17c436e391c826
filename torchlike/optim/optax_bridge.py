"""optax as a torch optimizer: ``from_optax(optax.adamw(1e-3), model.parameters())``."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..autograd import grad_mode
from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["OptaxOptimizer", "from_optax"]


class OptaxOptimizer(Optimizer):
    """A ``torch.optim.Optimizer`` whose update rule is an optax ``GradientTransformation``.

    Each param group keeps one optax state (in ``state['optax_state_<i>']``, as tensors, so ``torchlike.compile``
    lifts it; ``state_dict()`` holds it as a list of tensors, so ``torch.load`` with ``weights_only=True`` reads
    it back). As in torch, a parameter whose ``.grad`` is None is left unchanged, and a group where none has a
    gradient is skipped (its optax state does not advance). When the transformation exposes a
    ``learning_rate`` hyperparameter (``optax.inject_hyperparams``), the group's ``'lr'`` drives it, so torch LR
    schedulers work. A plain transformation has its rate built in: pass that rate as ``lr=`` and the group gets an
    ``'lr'`` that scales the transformation's updates by ``group['lr'] / lr`` (exact for optax's optimizers, whose
    last step multiplies by the learning rate), so schedulers work there too; without ``lr=`` it has no ``'lr'``.

    >>> import optax, torchlike
    >>> p = torchlike.tensor([1.0, -1.0], requires_grad=True)
    >>> opt = torchlike.optim.from_optax(optax.sgd(0.1), [p])
    >>> p.grad = torchlike.tensor([1.0, 1.0]); opt.step()
    >>> p
    tensor([ 0.9000, -1.1000], requires_grad=True)
    """

    def __init__(self, params, tx, lr=None):
        import optax  # lazy: optax is optional; only this optimizer needs it

        def update(grads, state, ps, scale):
            updates, state = tx.update(grads, state, ps)
            updates = jax.tree_util.tree_map(lambda u: u * scale.astype(u.dtype), updates)
            return optax.apply_updates(ps, updates), state
        if lr is not None and not (isinstance(lr, (int, float)) and lr > 0):
            raise ValueError(f"Invalid learning rate: {lr}")
        self.tx = tx
        self._base_lr = lr
        self._update = jax.jit(update)
        self._treedefs = {}
        super().__init__(params, {})

    def add_param_group(self, param_group):
        """Add a group (as torch's ``add_param_group``) with a fresh optax state of its own."""
        super().add_param_group(param_group)
        i = len(self.param_groups) - 1
        group = self.param_groups[i]
        st = self.tx.init([p._value for p in group["params"]])
        hp = getattr(st, "hyperparams", None)
        if isinstance(hp, dict) and "learning_rate" in hp:
            group.setdefault("lr", float(str(np.asarray(hp["learning_rate"]))))  # 0.1, not float32 0.10000000149
        elif self._base_lr is not None:
            group.setdefault("lr", float(self._base_lr))
        self._treedefs[i] = jax.tree_util.tree_structure(st)
        self.state[f"optax_state_{i}"] = jax.tree_util.tree_map(lambda a: Tensor._wrap(a), st)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        for i, group in enumerate(self.param_groups):
            ps = group["params"]
            if all(p.grad is None for p in ps):
                continue
            key = f"optax_state_{i}"
            leaves = jax.tree_util.tree_leaves(self.state[key], is_leaf=lambda t: isinstance(t, Tensor))
            st = jax.tree_util.tree_unflatten(self._treedefs[i], [t._value for t in leaves])
            hp = getattr(st, "hyperparams", None)
            scale = 1.0
            if isinstance(hp, dict) and "learning_rate" in hp and "lr" in group:
                hp["learning_rate"] = jnp.asarray(group["lr"], dtype=jnp.asarray(hp["learning_rate"]).dtype)
            elif self._base_lr is not None and "lr" in group:
                scale = float(group["lr"]) / self._base_lr
            grads = [p.grad._value if p.grad is not None else jnp.zeros_like(p._value) for p in ps]
            new_ps, new_st = self._update(grads, st, [p._value for p in ps], jnp.asarray(scale, jnp.float32))
            with grad_mode.no_grad():
                for p, v in zip(ps, new_ps):
                    if p.grad is not None:
                        p._set_value(v)
            for t, v in zip(leaves, jax.tree_util.tree_leaves(new_st)):
                t._set_value(v)
        return loss

    def state_dict(self):
        """torch's layout; each group's optax state is the list of its leaves (tensors)."""
        sd = super().state_dict()
        sd["state"] = {k: (jax.tree_util.tree_leaves(v, is_leaf=lambda t: isinstance(t, Tensor))
                           if isinstance(k, str) and k.startswith("optax_state_") else v)
                       for k, v in sd["state"].items()}
        return sd

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        for i, treedef in self._treedefs.items():
            key = f"optax_state_{i}"
            v = self.state.get(key)
            if isinstance(v, list):
                if len(v) != treedef.num_leaves:
                    raise ValueError(f"loaded optax state of group {i} has {len(v)} tensors, this optimizer's "
                                     f"transformation keeps {treedef.num_leaves}")
                self.state[key] = jax.tree_util.tree_unflatten(treedef, [Tensor._wrap(t._value) for t in v])


def from_optax(tx, params, lr=None):
    """Wrap an optax ``GradientTransformation`` as a torch-style optimizer over ``params``.

    ``lr``: the learning rate a plain (not ``inject_hyperparams``) transformation was built with; it gives each
    group an ``'lr'`` that torch LR schedulers can drive (see ``OptaxOptimizer``).

    >>> import optax, torchlike
    >>> p = torchlike.tensor([1.0], requires_grad=True)
    >>> opt = torchlike.optim.from_optax(optax.sgd(0.1), [p], lr=0.1)
    >>> sched = torchlike.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    >>> p.grad = torchlike.tensor([1.0]); opt.step(); sched.step(); opt.step()
    >>> p
    tensor([0.8500], requires_grad=True)
    """
    return OptaxOptimizer(params, tx, lr=lr)
