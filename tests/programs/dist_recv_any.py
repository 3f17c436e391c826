"""torchrun script (3 ranks, gloo): rank 0 receives without naming the source (recv(tensor), irecv(tensor),
recv_object_list) from whichever rank sends; each rank writes its lines with one os.write."""
import os

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
lines = []
if rank == 0:
    got = []
    for _ in range(world - 1):
        t = torch.zeros(3)
        src = dist.recv(t)
        got.append((src, t.tolist()))
    lines.append(f"recv any {sorted(got)}")
else:
    dist.send(torch.arange(3, dtype=torch.float32) * rank, dst=0)
dist.barrier()
if rank == 0:
    t = torch.zeros(2, dtype=torch.int64)
    w = dist.irecv(t)
    w.wait()
    lines.append(f"irecv any {t.tolist()}")
    try:
        dist.recv_object_list([None])
    except ValueError as e:
        lines.append(f"recv_object_list without src: {e}")
elif rank == 1:
    dist.send(torch.tensor([7, 8]), dst=0)
dist.barrier()
# a second round: explicit and any-source receives mixed
if rank == 2:
    dist.send(torch.ones(1) * 5, dst=0)
if rank == 0:
    t = torch.zeros(1)
    lines.append(f"then from {dist.recv(t)} {t.tolist()}")
os.write(1, "".join(f"R{rank} {s}\n" for s in lines).encode())
dist.destroy_process_group()
