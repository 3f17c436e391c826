"""Fine-tune a torchlike model with optax inside ``jax.jit``.

``torchlike.func.to_jax`` turns the Module into a pure function ``apply_fn(params, x)`` and a dict of
``jax.Array`` parameters, so the whole training step (forward, ``jax.grad``, optax update) is one jitted JAX
function; the trained parameters go back into the Module with ``load_state_dict``.

Run: python examples/optax_finetune_jit.py
"""
import jax
import jax.numpy as jnp
import numpy as np
import optax

import torchlike as torch
from torchlike.func import to_jax


def main(steps=200):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
    rng = np.random.RandomState(0)
    x = rng.randn(256, 8).astype(np.float32)
    y = (np.sin(x[:, :1]) + 0.5 * x[:, 1:2]).astype(np.float32)

    apply_fn, params = to_jax(model)
    tx = optax.adam(1e-2)
    opt_state = tx.init(params)

    def loss_fn(p, xb, yb):
        return jnp.mean((apply_fn(p, xb) - yb) ** 2)

    @jax.jit
    def step(p, s, xb, yb):
        loss, grads = jax.value_and_grad(loss_fn)(p, xb, yb)
        updates, s = tx.update(grads, s, p)
        return optax.apply_updates(p, updates), s, loss

    first = None
    for _ in range(steps):
        params, opt_state, loss = step(params, opt_state, x, y)
        first = float(loss) if first is None else first
    model.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in params.items()})
    final = torch.nn.functional.mse_loss(model(torch.from_numpy(x)), torch.from_numpy(y)).item()
    print(f"loss {first:.4f} -> {final:.4f}")
    assert final < 0.2 * first and abs(final - float(loss)) < 1e-2
    return first, final


if __name__ == "__main__":
    main()
