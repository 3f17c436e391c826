"""torch.multiprocessing.spawn + init_process_group(init_method="file://...") + all_reduce / broadcast:
the classic single-node pattern without a launcher (run unmodified under torch and the drop-in runner)."""
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world, path):
    dist.init_process_group("gloo", init_method=f"file://{path}", rank=rank, world_size=world)
    t = torch.arange(3, dtype=torch.float32) + rank
    dist.all_reduce(t)
    b = torch.tensor([10.0 * (rank + 1)])
    dist.broadcast(b, src=1)
    dist.barrier()
    lines = [None] * world
    dist.all_gather_object(lines, f"rank {rank} of {dist.get_world_size()}: sum {t.tolist()} broadcast {b.item()}")
    if rank == 0:  # one printer: two ranks' unbuffered prints could interleave
        print("\n".join(lines), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    path = os.path.join(tempfile.mkdtemp(), "rendezvous")
    mp.spawn(worker, args=(2, path), nprocs=2)
    print("done", file=sys.stderr)
