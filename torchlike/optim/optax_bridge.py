"""optax as a torch optimizer: ``from_optax(optax.adamw(1e-3), model.parameters())``."""
from __future__ import annotations

import jax

from ..autograd import grad_mode
from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["OptaxOptimizer", "from_optax"]


class OptaxOptimizer(Optimizer):
    """A ``torch.optim.Optimizer`` whose update rule is an optax ``GradientTransformation``.

    Each param group keeps one optax state (in ``state['optax_state_<i>']``, as tensors, so it is saved by
    ``state_dict`` and lifted by ``torchlike.compile``).  Parameters without a gradient get a zero gradient.
    When the transformation exposes a ``learning_rate`` hyperparameter (``optax.inject_hyperparams``), the
    group's ``'lr'`` drives it, so torch LR schedulers work.

    >>> import optax, torchlike
    >>> p = torchlike.tensor([1.0, -1.0], requires_grad=True)
    >>> opt = torchlike.optim.from_optax(optax.sgd(0.1), [p])
    >>> p.grad = torchlike.tensor([1.0, 1.0]); opt.step()
    >>> p
    tensor([ 0.9000, -1.1000], requires_grad=True)
    """

    def __init__(self, params, tx):
        self.tx = tx
        super().__init__(params, {})
        import optax

        def update(grads, state, ps):
            updates, state = tx.update(grads, state, ps)
            return optax.apply_updates(ps, updates), state
        self._update = jax.jit(update)
        for i, group in enumerate(self.param_groups):
            st = tx.init([p._value for p in group["params"]])
            hp = getattr(st, "hyperparams", None)
            if isinstance(hp, dict) and "learning_rate" in hp:
                group.setdefault("lr", float(hp["learning_rate"]))
            self.state[f"optax_state_{i}"] = jax.tree_util.tree_map(lambda a: Tensor._wrap(a), st)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        import jax.numpy as jnp
        for i, group in enumerate(self.param_groups):
            key = f"optax_state_{i}"
            tree = self.state[key]
            leaves, treedef = jax.tree_util.tree_flatten(tree, is_leaf=lambda t: isinstance(t, Tensor))
            st = jax.tree_util.tree_unflatten(treedef, [t._value for t in leaves])
            hp = getattr(st, "hyperparams", None)
            if isinstance(hp, dict) and "learning_rate" in hp and "lr" in group:
                hp["learning_rate"] = jnp.asarray(group["lr"], dtype=jnp.asarray(hp["learning_rate"]).dtype)
            ps = group["params"]
            grads = [p.grad._value if p.grad is not None else jnp.zeros_like(p._value) for p in ps]
            new_ps, new_st = self._update(grads, st, [p._value for p in ps])
            with grad_mode.no_grad():
                for p, v in zip(ps, new_ps):
                    p._set_value(v)
            for t, v in zip(leaves, jax.tree_util.tree_leaves(new_st)):
                t._set_value(v)
        return loss


def from_optax(tx, params):
    """Wrap an optax ``GradientTransformation`` as a torch-style optimizer over ``params``."""
    return OptaxOptimizer(params, tx)
