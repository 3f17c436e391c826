"""``torch.distributed.tensor.parallel``: tensor parallelism (``parallelize_module`` with Colwise/Rowwise/
Sequence parallel styles and input/output layout preparation) on torchlike's DTensor and collectives.

>>> from torchlike.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel
>>> RowwiseParallel().output_layouts
(Replicate(),)
"""
from __future__ import annotations

from ...._missing import module_getattr
from .api import parallelize_module
from .loss import loss_parallel
from .style import (ColwiseParallel, ParallelStyle, PrepareModuleInput, PrepareModuleInputOutput,
                    PrepareModuleOutput, RowwiseParallel, SequenceParallel)

__all__ = ["ColwiseParallel", "ParallelStyle", "PrepareModuleInput", "PrepareModuleInputOutput",
           "PrepareModuleOutput", "RowwiseParallel", "SequenceParallel", "loss_parallel", "parallelize_module"]

__getattr__ = module_getattr("torch.distributed.tensor.parallel")
