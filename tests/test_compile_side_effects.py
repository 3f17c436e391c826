"""A compiled function's Python side effects (print, a global list's append, a global or nonlocal counter) happen
once per call, as under torch.compile: before a graph break they ran twice (the trace, then the eager rerun), and
with no break only on the first call (the program repeats none of them). The program's printed lines are
compared with real torch's."""
import os

from conftest import run_program

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "compile_side_effects.py")


def test_side_effects_happen_once_per_call_like_torch_compile():
    theirs = run_program([PROGRAM], runner=False)
    ours = run_program([PROGRAM], runner=True)
    assert ours == theirs
    assert theirs.count("print_then_break: before") == 3 and "fullgraph print: Unsupported" in theirs


def test_watch_undoes_what_a_trace_did():
    from torchlike.compile._side_effects import Watch
    ns = {"__name__": "script"}
    exec("LOG = []\nn = 0\nD = {}\ndef g():\n    D['k'] = 1\ndef f():\n    global n\n    LOG.append(1)\n"
         "    n += 1\n    g()\n    print('x')\n", ns)
    w = Watch(ns["f"])
    with w:
        ns["f"]()
    assert w.happened() == "print, D changed, LOG changed, n changed"
    w.undo()
    assert (ns["LOG"], ns["n"], ns["D"]) == ([], 0, {})
    w = Watch(ns["g"])
    with w:
        pass
    assert w.happened() == ""
