"""How much of a torchlike file repeats the installed torch's source verbatim.

    python tools/similarity.py torchlike/optim/lr_scheduler.py [more files...]

Counts non-blank, non-comment stripped lines that sit in runs of >= 3 identical lines shared with the
torch file of the same name.  We write our own code: keep this well below 15% of a file (error messages
and signatures that must equal torch's will always match).
"""
import difflib
import glob
import os
import sys


def lines(path):
    return [x.strip() for x in open(path).read().splitlines() if x.strip() and not x.strip().startswith("#")]


def main(paths):
    import torch
    root = os.path.dirname(torch.__file__)
    index = {}
    for f in glob.glob(root + "/**/*.py", recursive=True):
        index.setdefault(os.path.basename(f), []).append(f)
    for p in paths:
        a = lines(p)
        base = os.path.basename(p)
        best, where = 0, None
        for c in index.get(base, []) + index.get(base.lstrip("_"), []) + index.get(base.replace("_lr_scheduler_cyclic", "lr_scheduler"), []):
            sm = difflib.SequenceMatcher(None, a, lines(c), autojunk=False)
            same = sum(b.size for b in sm.get_matching_blocks() if b.size >= 3)
            if same > best:
                best, where = same, c
        pct = 100 * best / max(len(a), 1)
        print(f"{p}: {best}/{len(a)} lines in shared runs ({pct:.0f}%) with {where and where.replace(root, 'torch')}")


if __name__ == "__main__":
    main(sys.argv[1:])
