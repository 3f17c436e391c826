"""DataLoader worker seeding, run under torch or torchlike (argv[1]); prints one line per sample and batch.

Each sample reports its worker's id and ``get_worker_info().seed``, the worker's ``initial_seed()`` and a
draw from each of torch's, Python's and numpy's generators (all seeded per worker by the DataLoader).
"""
import random
import sys

import numpy as np

m = __import__(sys.argv[1])


class Probe:
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = m.utils.data.get_worker_info()
        return m.tensor([i, info.id, info.seed % 2 ** 62, m.initial_seed() % 2 ** 62,
                         int(m.randint(0, 1000, (1,)).item()), random.randint(0, 1000),
                         int(np.random.randint(0, 1000)), int(m.rand(20).mul(1000).long()[17])])


def _say(line):
    """One write per line: worker processes share stdout (print's separate writes could interleave)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def init(worker_id):
    info = m.utils.data.get_worker_info()
    _say(f"init {worker_id} {info.seed % 2 ** 62} {info.num_workers}")


if __name__ == "__main__":
    m.manual_seed(int(sys.argv[2]))
    for name, kw in [("shuffle", dict(shuffle=True)), ("plain", dict(shuffle=False)),
                     ("gen", dict(shuffle=True, generator=m.Generator().manual_seed(3))),
                     ("persistent", dict(shuffle=True, persistent_workers=True))]:
        loader = m.utils.data.DataLoader(Probe(), batch_size=2, num_workers=2, worker_init_fn=init, **kw)
        for epoch in range(2):
            for batch in loader:
                _say(f"{name} {epoch} {batch.tolist()}")
    _say(f"after {m.rand(3).tolist()}")
