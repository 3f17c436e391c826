"""``python -m torchlike.distributed.launch``: the legacy launcher name; the same as ``torchlike.distributed.run``
(``--use-env`` is implied: ranks come from the environment, LOCAL_RANK included).

>>> from torchlike.distributed.launch import parse_args
>>> parse_args(["--nproc_per_node=2", "train.py"]).nproc_per_node
'2'
"""
import sys

from ._launcher import get_args_parser, run

__all__ = ["main", "parse_args"]


def parse_args(args):
    p = get_args_parser()
    p.add_argument("--use-env", "--use_env", action="store_true")
    return p.parse_args(args)


def main(args=None):
    sys.exit(run(parse_args(sys.argv[1:] if args is None else args)))


if __name__ == "__main__":
    main()
