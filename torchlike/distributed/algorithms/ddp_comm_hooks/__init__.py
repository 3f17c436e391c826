"""DDP communication hooks (``default_hooks.allreduce_hook``, ``fp16_compress_hook``, ``bf16_compress_hook``)."""
from . import default_hooks
from .default_hooks import allreduce_hook, bf16_compress_hook, fp16_compress_hook

__all__ = ["allreduce_hook", "bf16_compress_hook", "default_hooks", "fp16_compress_hook"]
