"""torch.backends.cudnn flags (no cuDNN under XLA: the flags are kept but change nothing)."""
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version():
    return None
