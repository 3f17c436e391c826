"""torch.utils.benchmark.utils: the modules defining Timer (``timer``), Measurement (``common``), Compare
(``compare``)."""
from ...._missing import module_getattr

__getattr__ = module_getattr("torch.utils.benchmark.utils")
