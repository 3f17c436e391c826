"""Loaded by Python at start-up in processes the drop-in runner spawns (DataLoader workers,
multiprocessing children): makes ``import torch`` resolve to torchlike there too."""
import os

if os.environ.get("TORCHLIKE_AS_TORCH") == "1":
    from torchlike._runner import TorchFinder
    from torchlike import _torch_extensions
    import sys
    if not any(isinstance(f, TorchFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TorchFinder())
    _torch_extensions.install()
