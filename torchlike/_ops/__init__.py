"""Op declarations.  Importing this package fills ``registry.TABLE``."""
from . import registry  # noqa: F401
from . import basic, views, pointwise, shape, reduction, indexing, scatter  # noqa: F401
from . import matmul  # noqa: F401
from . import shape2, pointwise2, special, random_ops  # noqa: F401
from . import reduction2, sorting  # noqa: F401
from . import linalg, linalg_decomp, linalg_norms  # noqa: F401
from . import lowrank  # noqa: F401
from . import fft  # noqa: F401
from . import misc  # noqa: F401
from . import copies  # noqa: F401
from . import special2  # noqa: F401
from . import tensor_methods  # noqa: F401
