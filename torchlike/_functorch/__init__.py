"""torch._functorch: the private home of torch's functorch transforms (only ``vmap``'s Python-visible helpers)."""
