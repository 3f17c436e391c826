"""Rows of a small tensor read on the host (``for i in ix: data[i:i + 8]``): values, dtypes and the
arithmetic on them must be torch's, whatever the row's dtype or the tensor's rank."""
import numpy as np
import pytest
import torch

import torchlike as tl


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "int16", "bool", "float32"])
def test_rows_of_1d_tensor(dtype):
    vals = [3, 0, 7, 1, 5]
    t = torch.tensor(vals).to(getattr(torch, dtype))
    l = tl.tensor(vals).to(getattr(tl, dtype))
    trows, lrows = list(t), list(l)
    for tr, lr in zip(trows, lrows):
        assert str(lr.dtype) == str(tr.dtype)
        assert lr.shape == tr.shape == ()
        assert lr.item() == tr.item()
        if dtype != "bool":
            assert (lr + 2).item() == (tr + 2).item()
            assert str((lr + 2).dtype) == str((tr + 2).dtype)


def test_rows_index_slices_like_torch():
    data_np = np.arange(100) * 3
    td, ld = torch.tensor(data_np), tl.tensor(data_np)
    ix = [5, 90, 0, 41]
    tix, lix = torch.tensor(ix), tl.tensor(ix)
    tx = torch.stack([td[i:i + 8] for i in tix])
    lx = tl.stack([ld[i:i + 8] for i in lix])
    np.testing.assert_array_equal(lx.numpy(), tx.numpy())
    ty = torch.stack([td[i + 1:i + 8 + 1] for i in tix])
    ly = tl.stack([ld[i + 1:i + 8 + 1] for i in lix])
    np.testing.assert_array_equal(ly.numpy(), ty.numpy())
    assert [int(i) for i in lix] == [int(i) for i in tix]


def test_rows_of_2d_tensor_and_writes():
    a = np.arange(12).reshape(4, 3)
    t, l = torch.tensor(a), tl.tensor(a)
    for tr, lr in zip(t, l):
        np.testing.assert_array_equal(lr.numpy(), tr.numpy())
        assert [int(v) for v in lr] == [int(v) for v in tr]
    lrows = list(l)
    l[1, 0] = 100  # a write to the root after the rows were made: rows are views and see it (torch)
    trows = list(t)
    t[1, 0] = 100
    assert int(lrows[1][0]) == int(trows[1][0]) == 100
