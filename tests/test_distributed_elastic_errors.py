"""torch.distributed.elastic.multiprocessing.errors.record, against torch's: the error file a worker writes,
re-raising, and ``sys.exit(0)``."""
import json

import pytest

import torchlike.distributed.elastic.multiprocessing.errors as ours
from torch.distributed.elastic.multiprocessing import errors as theirs


def _run(mod, tmp_path, monkeypatch, name):
    path = tmp_path / name
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(path))

    @mod.record
    def main(x):
        raise ValueError(f"boom {x}")
    with pytest.raises(ValueError, match="boom 3"):
        main(3)
    return json.loads(path.read_text())


def test_record_writes_torchs_error_file(tmp_path, monkeypatch):
    a = _run(ours, tmp_path, monkeypatch, "ours.json")
    b = _run(theirs, tmp_path, monkeypatch, "theirs.json")
    assert a["message"]["message"] == b["message"]["message"] == "ValueError: boom 3"
    assert sorted(a["message"]["extraInfo"]) == sorted(b["message"]["extraInfo"])
    assert "ValueError: boom 3" in a["message"]["extraInfo"]["py_callstack"]
    # the launcher side reads it back
    f = ours.ProcessFailure(local_rank=0, pid=1, exitcode=1, error_file=str(tmp_path / "ours.json"))
    assert f.message == "ValueError: boom 3"
    err = ours.ChildFailedError("train.py", {0: f})
    assert err.get_first_failure()[0] == 0 and "train.py FAILED" in str(err)


def test_record_returns_and_exit_zero(monkeypatch):
    monkeypatch.delenv("TORCHELASTIC_ERROR_FILE", raising=False)
    for mod in (ours, theirs):
        assert mod.record(lambda: 7)() == 7

        def done():
            raise SystemExit(0)
        assert mod.record(done)() is None

        def bad():
            raise SystemExit(2)
        with pytest.raises(SystemExit):
            mod.record(bad)()
