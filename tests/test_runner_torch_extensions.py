"""Under the drop-in runner a compiled PyTorch extension (a Python extension module linked against libtorch, as
``torchopt._C`` is) fails to import with ImportError, the error torch gives when an extension is missing or was
built for another torch, so libraries take their pure-Python fallback; the real libtorch is never mapped into
the process. ``find_spec`` still finds the module, as with torch. The extension used here is torch's own
``torch/_C`` shared object (it links libtorch_python.so) under another module name."""
import importlib.util
import os
import subprocess
import sys

import pytest

from torchlike._torch_extensions import TorchExtensionGuard, torch_libraries_needed


def _torch_c():
    spec = importlib.util.find_spec("torch")  # (does not import torch)
    if spec is None:
        pytest.skip("torch is not installed")
    d = spec.submodule_search_locations[0]
    names = [n for n in os.listdir(d) if n.startswith("_C.") and n.endswith(".so")]
    if not names:
        pytest.skip("no ELF torch/_C extension here")
    return os.path.join(d, names[0])


def _fake_extension(tmp_path):
    """A package ``fakeext`` whose ``_C`` is torch's _C shared object, its libraries found (its runpath
    ``$ORIGIN/lib``): loaded, it would map libtorch and run torch's own initialisation against torchlike."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    pkg = tmp_path / "fakeext"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    c = _torch_c()
    os.symlink(c, pkg / ("_C" + suffix))
    os.symlink(os.path.join(os.path.dirname(c), "lib"), pkg / "lib")
    return pkg


def test_torch_libraries_of_a_shared_object():
    assert torch_libraries_needed(_torch_c()) == ("libtorch_python.so",)
    assert torch_libraries_needed(sys.executable) == ()
    np_core = importlib.util.find_spec("numpy.core._multiarray_umath") or importlib.util.find_spec(
        "numpy._core._multiarray_umath")
    assert torch_libraries_needed(np_core.origin) == ()  # an ordinary extension
    assert torch_libraries_needed(__file__) == ()         # not ELF


def test_guard_finds_the_extension_and_refuses_to_load_it(tmp_path):
    _fake_extension(tmp_path)
    guard = TorchExtensionGuard()
    spec = guard.find_spec("fakeext", [str(tmp_path)])
    assert spec is not None and spec.origin.endswith("__init__.py")  # other modules: the path finder's spec
    spec = guard.find_spec("fakeext._C", [str(tmp_path / "fakeext")])
    assert spec is not None
    with pytest.raises(ImportError, match="compiled PyTorch extension .*libtorch_python.so") as e:
        importlib.util.module_from_spec(spec)
    assert e.value.name == "fakeext._C"


def test_importing_a_torch_extension_under_the_runner_is_an_import_error(tmp_path):
    _fake_extension(tmp_path)
    script = tmp_path / "use_ext.py"
    script.write_text(
        "import importlib.util, sys\n"
        "import torch\n"
        "print('found', importlib.util.find_spec('fakeext._C') is not None)\n"
        "try:\n"
        "    import fakeext._C\n"
        "except ImportError as e:\n"
        "    print('ImportError', e.name, 'fakeext._C' in sys.modules)\n"
        "print('libtorch mapped', any('libtorch' in line for line in open('/proc/self/maps')))\n"
        "print(torch.ones(2).sum().item())\n")
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", str(script)], capture_output=True, text=True,
                         timeout=300, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split("\n")[:4] == ["found True", "ImportError fakeext._C False", "libtorch mapped False",
                                          "2.0"], out.stdout
