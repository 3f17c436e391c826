"""torchlike.fx.passes: analysis passes over FX graphs (``shape_prop.ShapeProp``)."""
from . import shape_prop  # noqa: F401

__all__ = ["shape_prop"]
