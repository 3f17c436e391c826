"""torchlike.functional: ``torch.functional``'s names (``einsum``, ``split``, ``norm``, ``meshgrid``, ...), the very
objects ``torchlike.X`` holds, as in torch (``torch.functional.einsum is torch.einsum``). opt_einsum_fx keys a
set on ``torch.functional.einsum``.

>>> import torchlike
>>> torchlike.functional.einsum is torchlike.einsum
True
"""
from torchlike import (atleast_1d, atleast_2d, atleast_3d, block_diag, broadcast_shapes, broadcast_tensors,
                       cartesian_prod, cdist, chain_matmul, einsum, istft, lu, meshgrid, norm, pca_lowrank, split,
                       stft, svd_lowrank, tensordot, unique, unique_consecutive, unravel_index)

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
           "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm", "meshgrid", "pca_lowrank", "split",
           "stft", "svd_lowrank", "tensordot", "unique", "unique_consecutive", "unravel_index"]
