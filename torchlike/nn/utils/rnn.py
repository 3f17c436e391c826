"""Variable-length sequences: PackedSequence, pack/pad helpers (torch.nn.utils.rnn).

Packing is a gather with an index table computed from the (host-side) lengths, so it is
differentiable and runs as one jitted op.

>>> import torchlike as torch
>>> from torchlike.nn.utils.rnn import pack_sequence, pad_packed_sequence
>>> p = pack_sequence([torch.tensor([1., 2., 3.]), torch.tensor([4., 5.])])
>>> p.data, p.batch_sizes
(tensor([1., 4., 2., 5., 3.]), tensor([2, 2, 1]))
>>> pad_packed_sequence(p, batch_first=True)
(tensor([[1., 2., 3.],
        [4., 5., 0.]]), tensor([3, 2]))
"""
from __future__ import annotations

from collections import namedtuple

import jax.numpy as jnp
import numpy as np

from ... import _creation, _dtype
from ..._dispatch import dispatch
from ...tensor import Tensor
from ..functional._recurrent import _pack_impl, _pack_table, padded_to_packed_data  # noqa: F401 (re-exported)
from ..functional._rnn import gather_rows, np_index

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]

PackedSequence_ = _Base = namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


def bind(optional, fn):
    """``None`` if ``optional`` is None, else ``fn(optional)``.

    >>> bind(None, abs), bind(-2, abs)
    (None, 2)
    """
    if optional is None:
        return None
    return fn(optional)


def invert_permutation(permutation):
    if permutation is None:
        return None
    p = np.asarray(permutation.tolist(), np.int64)
    inv = np.empty_like(p)
    inv[p] = np.arange(p.size)
    return _creation.tensor(inv, dtype=permutation.dtype)


class PackedSequence(_Base):
    """Holds the data and list of ``batch_sizes`` of a packed sequence (time-major, longest first)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # torch's "packed from a tuple" form
            data, batch_sizes = data[0], data[1]
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args, **kwargs):
        return self.to("cpu")

    def cuda(self, *args, **kwargs):
        return self.to("cuda")

    def double(self):
        return self.to(dtype=_dtype.float64)

    def float(self):
        return self.to(dtype=_dtype.float32)

    def half(self):
        return self.to(dtype=_dtype.float16)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def _lengths_list(lengths):
    # torch first makes ``torch.as_tensor(lengths, dtype=torch.int64, device="cpu")`` of a tensor or a (nested)
    # list, so its 1-D check always names a cpu Long tensor
    values = lengths.tolist() if isinstance(lengths, Tensor) else np.asarray(lengths).tolist()
    ndim = lengths.ndim if isinstance(lengths, Tensor) else np.ndim(values)
    if ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {ndim}D cpu Long tensor")
    return [int(v) for v in values]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T, B, *) given each sequence's length.

    >>> import torchlike as torch
    >>> from torchlike.nn.utils.rnn import pack_padded_sequence
    >>> pack_padded_sequence(torch.tensor([[1, 2], [3, 0]]), [2, 1]).batch_sizes
    tensor([2, 1])
    """
    lengths = _lengths_list(lengths)
    if enforce_sorted:
        if any(lengths[i] < lengths[i + 1] for i in range(len(lengths) - 1)):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
        order = np.arange(len(lengths))
        sorted_indices = None
    else:
        order = np.argsort(-np.asarray(lengths), kind="stable")
        sorted_indices = _creation.tensor(order, dtype=_dtype.int64)
    if any(L <= 0 for L in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    x = input.transpose(0, 1) if batch_first else input
    T, B = x.shape[0], x.shape[1]
    if len(lengths) != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} (batch_size="
                           f"{B})")
    if max(lengths) > T:
        raise RuntimeError(f"Expected sequence length to be larger than or equal to the maximum length "
                           f"({max(lengths)}), but got {T}")
    sl = [lengths[i] for i in order]
    rows, bs = _pack_table(sl)
    idx = np.asarray([t * B + int(order[b]) for t, b in rows], np.int64)
    data = dispatch(_pack_impl, (x, np_index(idx)), (), name="PackPaddedSequenceBackward0", saves=False)
    return PackedSequence(data, _creation.tensor(bs, dtype=_dtype.int64), sorted_indices, None)


def packed_to_padded(sequence, total_length=None, padding_value=0.0, sorted_order=False):
    """(padded (T, B, *), lengths) of a PackedSequence; batch in original order unless ``sorted_order``."""
    bs = [int(v) for v in sequence.batch_sizes.tolist()]
    B = bs[0] if bs else 0
    T = len(bs) if total_length is None else int(total_length)
    lengths = [sum(1 for s in bs if s > b) for b in range(B)]
    table = -np.ones((T, B), np.int64)
    k = 0
    for t, s in enumerate(bs):
        table[t, :s] = np.arange(k, k + s)
        k += s
    if not sorted_order and sequence.unsorted_indices is not None:
        un = np.asarray(sequence.unsorted_indices.tolist(), np.int64)
        table = table[:, un]
        lengths = [lengths[i] for i in un]
    out = dispatch(gather_rows, (sequence.data, np_index(table), padding_value), (), name="PadPackedSequenceBackward0",
                   saves=False)
    return out, lengths


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Unpack a PackedSequence into a padded batch and a lengths tensor (original batch order)."""
    max_len = sequence.batch_sizes.shape[0]
    if total_length is not None and total_length < max_len:
        raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, but got "
                         f"total_length={total_length} and max sequence length being {max_len}")
    out, lengths = packed_to_padded(sequence, total_length, padding_value)
    if batch_first:
        out = out.transpose(0, 1)
        if sequence.unsorted_indices is not None:
            # torch restores the batch order with index_select, whose result is contiguous: the strides decide
            # which element a later in-place fill or dropout mask draws each random number for
            out = out.contiguous()
    return out, _creation.tensor(lengths, dtype=_dtype.int64)


def _pad_seq_impl(*xs, value, T, batch_first, left):
    outs = []
    for x in xs:
        n = T - x.shape[0]
        cfg = [(n, 0) if left else (0, n)] + [(0, 0)] * (x.ndim - 1)
        outs.append(jnp.pad(x, cfg, constant_values=jnp.asarray(value, x.dtype)))
    return jnp.stack(outs, 0 if batch_first else 1)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack variable-length tensors (L_i, *) into (T, B, *) (or (B, T, *)), padding with ``padding_value``.

    >>> import torchlike as torch
    >>> from torchlike.nn.utils.rnn import pad_sequence
    >>> pad_sequence([torch.tensor([1, 2]), torch.tensor([3])], batch_first=True)
    tensor([[1, 2],
            [3, 0]])
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    T = max(s.shape[0] for s in sequences)
    return dispatch(_pad_seq_impl, tuple(sequences),
                    (("value", float(padding_value)), ("T", T), ("batch_first", bool(batch_first)),
                     ("left", padding_side == "left")), name="PadSequenceBackward0", saves=False)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded batch back into a list of tensors of the given lengths."""
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[i, :int(L)] for i, L in enumerate(_lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of variable-length tensors (``pad_sequence`` then ``pack_padded_sequence``)."""
    lengths = [int(s.shape[0]) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of tensors a PackedSequence was built from."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
