"""Op declarations.  Importing this package fills ``registry.TABLE``."""
from . import registry  # noqa: F401
from . import basic, views, pointwise, division, shape, reduction, indexing, index_put, nonzero_where, scatter, take, masking  # noqa: F401
from . import matmul, addmm, grouped_mm  # noqa: F401
from . import rearrange, pointwise_composite, special, random_ops, activations  # noqa: F401
from . import order_stats_scans, sorting  # noqa: F401
from . import linalg, linalg_decomp, linalg_lu, linalg_norms, matrix_exp  # noqa: F401
from . import lowrank  # noqa: F401
from . import numpy_interop  # noqa: F401
from . import fft  # noqa: F401
from . import comparisons, complex_ops, shape_utils, statistics, calculus, windows  # noqa: F401
from . import view_copies, splits, inplace_views, pointwise_methods, vander  # noqa: F401
from . import special_bessel_poly, grid_sampler, spectral, native_norms, aten_ops, segment_reduce  # noqa: F401
from . import aten_forms  # noqa: F401
from . import tensor_methods  # noqa: F401

# torch._ops resolves to this package under the runner: its operator classes (``torch._ops.OpOverload`` in
# isinstance checks and annotations, ``torch._ops._OpNamespace``, ``torch._ops.ops``) are torchlike.library's,
# which sets OpOverload, OpOverloadPacket, _OpNamespace, _Ops and ops here when it loads (the facade imports it;
# library builds on the autograd layer, above this package)
