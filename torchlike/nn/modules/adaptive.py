"""nn.AdaptiveLogSoftmaxWithLoss: a frequency-clustered softmax for large vocabularies.

The head scores the shortlist classes plus one logit per tail cluster; each tail cluster projects to a
smaller hidden size and scores its own classes.  Rows are routed with masks (``where``/``gather``)
rather than torch's ``nonzero`` row selection, so the module traces under ``torchlike.compile``; a
tail runs on the whole batch (eagerly only when some target falls in its cluster), which gives the same
values and gradients.

>>> import torchlike as torch
>>> _ = torch.manual_seed(0)
>>> asm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4, 7])
>>> out = asm(torch.randn(3, 8), torch.tensor([1, 5, 9]))
>>> out.output.shape, out.loss.shape
(torch.Size([3]), torch.Size([]))
"""
from __future__ import annotations

from collections import namedtuple

from ... import _creation
from ..._ops.shape import cat as _cat
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module
from ...compile import _trace

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax approximation (Grave et al.) with torch's parameters, outputs and errors.

    ``forward(input, target)`` returns ``(output, loss)``: the target log-probabilities and their negated
    mean; ``log_prob(input)`` gives all ``n_classes`` log-probabilities, ``predict(input)`` the argmax.
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1 \
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **kw),
                                        Linear(hidden, size, bias=False, **kw)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def _check(self, input_, target_):
        if target_.dim() == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

    def forward(self, input_, target_):
        self._check(input_, target_)
        batched = target_.dim() > 0
        x = input_ if batched else input_.unsqueeze(0)
        t = target_ if batched else target_.unsqueeze(0)
        tracing = _trace.is_tracing()
        if t.numel() and not tracing:
            lo, hi = int(t.min()), int(t.max())
            if lo < 0 or hi > self.n_classes - 1:
                raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                                   f"[{lo}, {hi}] were found. ")
        out = _creation.zeros(t.shape[0], dtype=x.dtype, device=x.device)
        head_index = t.clamp(0, self.shortlist_size - 1)
        for i, tail in enumerate(self.tail):
            low, high = self.cutoffs[i], self.cutoffs[i + 1]
            member = (t >= low) & (t < high)
            if not tracing and not bool(member.any()):
                continue  # an unused cluster gets no gradient (None), as in torch
            logp = F.log_softmax(tail(x), dim=1)
            local = logp.gather(1, (t - low).clamp(0, high - low - 1).unsqueeze(1)).squeeze(1)
            out = out.where(~member, local)
            head_index = head_index.masked_fill(member, self.shortlist_size + i)
        head_logp = F.log_softmax(self.head(x), dim=1)
        out = out + head_logp.gather(1, head_index.unsqueeze(1)).squeeze(1)
        loss = (-out).mean()
        return _ASMoutput(out if batched else out.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        head_logp = F.log_softmax(head_output, dim=1)
        parts = [head_logp[:, :self.shortlist_size]]
        for i, tail in enumerate(self.tail):
            parts.append(F.log_softmax(tail(input), dim=1) + head_logp[:, self.shortlist_size + i].unsqueeze(1))
        return _cat(parts, dim=1)

    def log_prob(self, input):
        """Log-probabilities of all ``n_classes`` classes, shape ``(N, n_classes)``."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class per row (``log_prob(input).argmax(1)``)."""
        return self.log_prob(input).argmax(dim=1)
