"""nn.Embedding: a trainable lookup table (EmbeddingBag lives in embedding_bag.py).

>>> import torchlike as torch
>>> torch.nn.Embedding(10, 3, padding_idx=0)
Embedding(10, 3, padding_idx=0)
"""
from __future__ import annotations

from ... import _creation
from ...autograd import grad_mode
from .. import functional as F
from .. import init
from ...sparse._embedding import embedding as sparse_embedding
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding"]


def _resolve_padding(padding_idx, rows):
    """A padding row given from either end, as a non-negative row number (None stays None)."""
    if padding_idx is None:
        return None
    if not -rows <= padding_idx < rows:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx % rows if padding_idx < 0 else padding_idx


class Embedding(Module):
    """Maps integer ids to rows of a ``(num_embeddings, embedding_dim)`` weight, initialised N(0, 1).

    The ``padding_idx`` row starts at zero and receives no gradient; ``max_norm`` renormalises the rows
    that are looked up (in place) so their ``norm_type``-norm is at most ``max_norm``.

    >>> import torchlike as torch
    >>> emb = torch.nn.Embedding(5, 2, padding_idx=4)
    >>> emb(torch.tensor([[4, 4]])).tolist()
    [[[0.0, 0.0], [0.0, 0.0]]]
    """

    __constants__ = ["num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type",
                     "scale_grad_by_freq", "sparse"]

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _resolve_padding(padding_idx, num_embeddings)
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        trainable = not _freeze
        if _weight is not None:
            # a caller-supplied table is used as it is: its padding row is not zeroed
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=trainable)
        else:
            table = _creation.empty((num_embeddings, embedding_dim), device=device, dtype=dtype)
            self.weight = Parameter(table, requires_grad=trainable)
            self.reset_parameters()
        self.sparse = sparse

    def reset_parameters(self):
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is None:
            return
        with grad_mode.no_grad():
            self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        if self.sparse:
            return sparse_embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq)
        return F.embedding(input, self.weight, padding_idx=self.padding_idx, max_norm=self.max_norm,
                           norm_type=self.norm_type, scale_grad_by_freq=self.scale_grad_by_freq,
                           sparse=self.sparse)

    def extra_repr(self):
        # only the options that differ from their defaults are shown, in torch's order
        shown = [str(self.num_embeddings), str(self.embedding_dim)]
        optional = (("padding_idx", self.padding_idx is not None),
                    ("max_norm", self.max_norm is not None),
                    ("norm_type", self.norm_type != 2),
                    ("scale_grad_by_freq", self.scale_grad_by_freq is not False))
        shown += [f"{name}={getattr(self, name)}" for name, differs in optional if differs]
        if self.sparse is not False:
            shown.append("sparse=True")
        return ", ".join(shown)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        """An Embedding whose table is the 2-D ``embeddings``; frozen unless ``freeze=False``.

        >>> import torchlike as torch
        >>> table = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> torch.nn.Embedding.from_pretrained(table)(torch.tensor([1])).tolist()
        [[3.0, 4.0]]
        """
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        num, width = embeddings.shape
        return cls(num, width, padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse, _weight=embeddings, _freeze=freeze)


from .embedding_bag import EmbeddingBag  # noqa: E402  (torch defines it in this module)
from ..._torch_paths import home as _home  # noqa: E402

_home(globals(), EmbeddingBag)
