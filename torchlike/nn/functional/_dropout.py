"""nn.functional's dropout family, defined with the ops in ``torchlike/_ops/dropout.py`` (torch's dropout ops are
built on it; an op module cannot import this package, whose ``torchlike.nn`` __init__ is layer 5).

>>> import torchlike as torch
>>> import torchlike.nn.functional as F
>>> from torchlike._ops import dropout
>>> F.dropout is dropout.dropout
True
"""
from ..._ops.dropout import *  # noqa: F401,F403
from ..._ops.dropout import __all__  # noqa: F401
