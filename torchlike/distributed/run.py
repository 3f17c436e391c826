"""``python -m torchlike.distributed.run`` (torchrun): launch a torch.distributed script on torchlike.

    python -m torchlike.distributed.run --nproc-per-node 2 train.py --epochs 3

>>> from torchlike.distributed.run import parse_args
>>> parse_args(["--nproc-per-node", "2", "train.py", "--lr", "0.1"]).training_script_args
['--lr', '0.1']
"""
from ._launcher import get_args_parser, main, parse_args, run

__all__ = ["get_args_parser", "main", "parse_args", "run"]

if __name__ == "__main__":
    main()
