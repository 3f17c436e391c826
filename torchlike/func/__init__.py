"""torchlike.func: torch.func's composable function transforms, implemented with JAX's.

``vmap`` is ``jax.vmap``, ``grad``/``vjp``/``jacrev`` are ``jax.grad``/``jax.vjp``/``jax.jacrev``, and
so on: the user's function runs on Tensors wrapping JAX tracers, so the transforms nest freely
(per-sample gradients, Hessian-vector products, Jacobians of Jacobians) and trace inside
``torchlike.compile``.

>>> import torchlike
>>> from torchlike.func import grad, vmap
>>> w = torchlike.tensor([1., 2.])
>>> per_sample = vmap(grad(lambda w, x: (w * x).sum() ** 2), in_dims=(None, 0))
>>> per_sample(w, torchlike.tensor([[1., 0.], [0., 1.]]))
tensor([[2., 0.],
        [0., 4.]])
"""
from ._autodiff import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._module_state import functional_call, replace_all_batch_norm_modules_, stack_module_state
from ._vmap import vmap
from ._jax_interop import to_jax
from ._functionalize import debug_unwrap, functionalize

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian",
           "functional_call", "stack_module_state", "replace_all_batch_norm_modules_", "to_jax", "functionalize",
           "debug_unwrap"]

for _f in (grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp, functional_call,
           replace_all_batch_norm_modules_, stack_module_state, vmap, to_jax, functionalize, debug_unwrap):
    _f.__module__ = __name__  # torch reports torch.func
del _f
