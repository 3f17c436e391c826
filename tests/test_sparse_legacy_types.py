"""Legacy sparse type names against torch (tkipf/pygcn prints ``adj.type()`` of the tensor its
``torch.sparse.FloatTensor(indices, values, shape)`` made): ``Tensor.type()`` of a COO tensor is
``torch.sparse.<T>Tensor`` and the compressed layouts have none; ``torch.sparse.<T>Tensor`` are classes that
``isinstance`` matches by dtype and layout (and ``torch.FloatTensor`` no longer matches a sparse tensor);
their deprecation warnings are torch's, without the invariant-check note."""
import warnings

import pytest

import torchlike

torch = pytest.importorskip("torch")

NAMES = ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor",
         "HalfTensor", "BFloat16Tensor"]


def _both(fn):
    out = []
    for lib in (torch, torchlike):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out.append(fn(lib))
            except Exception as e:  # noqa: BLE001 - the comparison is the point
                out.append((type(e).__name__, str(e)))
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool", "float16", "uint8"])
def test_type_name_of_coo_and_dense(dtype):
    def f(lib):
        t = lib.ones(2, 3, dtype=getattr(lib, dtype))
        return t.type(), t.to_sparse().type(), t.to_sparse().coalesce().type()
    expected, ours = _both(f)
    assert ours == expected


@pytest.mark.parametrize("conv", ["to_sparse_csr", "to_sparse_csc", "to_sparse_bsr", "to_sparse_bsc"])
def test_type_name_of_compressed_layouts_raises(conv):
    def f(lib):
        t = lib.ones(2, 2)
        s = getattr(t, conv)(1) if conv.endswith(("bsr", "bsc")) else getattr(t, conv)()
        return s.type()
    expected, ours = _both(f)
    assert expected[0] == "RuntimeError"
    assert ours == expected


@pytest.mark.parametrize("name", NAMES)
def test_sparse_legacy_classes(name):
    def f(lib):
        cls = getattr(lib.sparse, name)
        s = lib.ones(2, 2).to_sparse()
        d = lib.ones(2, 2, dtype=cls.dtype)
        empty = cls(2, 3)
        return (isinstance(cls, type), cls.__name__, cls.__module__, str(cls.dtype), str(cls.layout), cls.is_sparse,
                isinstance(s, cls), isinstance(d, cls), isinstance(d.to_sparse(), cls),
                isinstance(d.to_sparse(), getattr(lib, name)), isinstance(d, getattr(lib, name)),
                type(cls).__name__, str(empty.layout), str(empty.dtype), tuple(empty.shape), empty._nnz())
    expected, ours = _both(f)
    assert ours == expected


def test_sparse_legacy_constructor_keeps_values_dtype_and_warns_as_torch(tmp_path):
    """(torch gives each form's deprecation warning once per process: both run in a fresh one)"""
    import subprocess
    import sys
    script = tmp_path / "legacy_sparse.py"
    script.write_text(
        "import warnings, torch; warnings.simplefilter('always')\n"
        "for _ in range(2):\n"
        "    a = torch.sparse.IntTensor(torch.tensor([[0, 1]]), torch.tensor([2.0, 3.0]), (3,))\n"
        "    b = torch.sparse.FloatTensor(torch.tensor([[0]]), torch.tensor([2.0]))\n"
        "    c = torch.sparse.LongTensor(4)\n"
        "    e = torch.sparse.DoubleTensor()\n"
        "print(a.dtype, a.to_dense().tolist(), a.type(), tuple(b.shape), c.dtype, tuple(c.shape), e.type(), e.shape)\n")
    runs = [subprocess.run([sys.executable, *runner, str(script)], capture_output=True, text=True, timeout=300)
            for runner in ([], ["-m", "torchlike", "run"])]
    assert runs[0].returncode == 0 and runs[1].returncode == 0, runs[1].stderr
    assert runs[1].stdout == runs[0].stdout == \
        "torch.float32 [2.0, 3.0, 0.0] torch.sparse.FloatTensor (1,) torch.int64 (4,) torch.sparse.DoubleTensor " \
        "torch.Size([0])\n"
    warned = [[line for line in r.stderr.splitlines() if "Warning" in line] for r in runs]
    assert len(warned[0]) == 4 and "invariant" not in runs[0].stderr
    assert warned[1] == warned[0]


def test_type_to_sparse_name_and_back():
    def f(lib):
        s = lib.ones(2, 2).to_sparse()
        r = s.type("torch.sparse.DoubleTensor")
        d = lib.ones(2).type(lib.sparse.FloatTensor)
        return r.type(), str(r.layout), str(d.layout), d.type(), s.type(lib.float64).type()
    expected, ours = _both(f)
    assert ours == expected
