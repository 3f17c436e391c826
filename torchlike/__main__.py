"""``python -m torchlike run script.py [args...]`` runs an unmodified PyTorch script on torchlike;
``python -m torchlike demo`` runs the demo."""
from __future__ import annotations

import sys
from ._runner import run_code, run_module
from ._runner import run
from .demo import main as demo

USAGE = ("usage: python -m torchlike run SCRIPT [ARGS...]\n       python -m torchlike run -m MODULE [ARGS...]\n"
         "       python -m torchlike run -c CODE [ARGS...]\n       python -m torchlike run - [ARGS...]  (the script "
         "from standard input)\n       python -m torchlike demo")


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd == "run":
        if not rest:
            print(USAGE, file=sys.stderr)
            return 2
        if rest[0] == "-m":
            if len(rest) < 2:
                print(USAGE, file=sys.stderr)
                return 2
            run_module(rest[1], rest[2:])
            return 0
        if rest[0] == "-c":
            if len(rest) < 2:
                print("Argument expected for the -c option", file=sys.stderr)
                return 2
            run_code(rest[1], "<string>", rest[2:])
            return 0
        if rest[0] == "-":
            run_code(sys.stdin.read(), "<stdin>", rest[1:])
            return 0
        run(rest[0], rest[1:])
        return 0
    if cmd == "demo":
        demo(rest)
        return 0
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
