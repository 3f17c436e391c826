"""The nn star-import loader (torchlike/nn/_loader.py) lets a broken module family fail loudly: the family's
own ImportError reaches the importer (it used to become an ImportWarning, hidden by default, and the
family's classes were silently missing)."""
import importlib
import sys

import pytest

from torchlike.nn._loader import star_import


@pytest.fixture
def fake_package(tmp_path, monkeypatch):
    pkg = tmp_path / "tl_fake_family_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "good.py").write_text("__all__ = ['A']\nA = 1\n_hidden = 2\n")
    (pkg / "plain.py").write_text("B = 3\n_private = 4\n")
    (pkg / "broken.py").write_text("from .good import DoesNotExist\n")
    (pkg / "cyclic.py").write_text("import tl_fake_no_such_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "tl_fake_family_pkg"
    for m in [m for m in sys.modules if m.startswith("tl_fake_family_pkg")]:
        del sys.modules[m]
    importlib.invalidate_caches()


def test_good_families_are_star_imported(fake_package):
    ns, names = {}, []
    star_import(fake_package, ["good", "plain"], ns, names)
    assert ns == {"A": 1, "B": 3} and names == ["A", "B"]


@pytest.mark.parametrize("family, error, text", [
    ("broken", ImportError, "cannot import name 'DoesNotExist'"),   # a bad name inside the family
    ("cyclic", ModuleNotFoundError, "tl_fake_no_such_dependency"),  # a dependency the family cannot find
    ("absent", ModuleNotFoundError, "tl_fake_family_pkg.absent"),   # a listed family with no file
])
def test_a_broken_family_raises_its_import_error(fake_package, family, error, text):
    ns, names = {}, []
    with pytest.raises(error, match=text):
        star_import(fake_package, ["good", family], ns, names)
    assert names == ["A"]  # the families before it were loaded; nothing was swallowed

