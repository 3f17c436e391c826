"""Data parallelism on JAX's distributed runtime (see the distributed issue)."""
