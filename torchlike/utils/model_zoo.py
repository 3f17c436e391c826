"""torchlike.utils.model_zoo: the older name of :func:`torchlike.hub.load_state_dict_from_url` (``load_url``).

>>> from torchlike.utils import model_zoo
>>> model_zoo.load_url.__name__
'load_state_dict_from_url'
"""
from ..hub import load_state_dict_from_url as load_url, tqdm

__all__ = ["load_url", "tqdm"]
