"""torch.backends.mkl (not available under torchlike)."""
enabled = True


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
