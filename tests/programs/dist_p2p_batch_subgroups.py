"""torchrun script (2 ranks, gloo): a ring exchange through batch_isend_irecv, objects through
send/recv_object_list, subgroups and the monitored barrier; each rank prints its results."""
import os

import torch
import torch.distributed as dist

dist.init_process_group(dist.get_default_backend_for_device(torch.device("cpu")))
rank, world = dist.get_rank(), dist.get_world_size()
lines = [f"local_rank {dist.get_node_local_rank()}", f"backend {dist.get_backend()}",
         f"complex SUM {dist.supports_complex(dist.ReduceOp.SUM)} MAX {dist.supports_complex(dist.ReduceOp.MAX)}"]

send = torch.arange(3, dtype=torch.float32) + 10 * rank
recv = torch.zeros(3)
ops = [dist.P2POp(dist.isend, send, (rank + 1) % world), dist.P2POp(dist.irecv, recv, (rank - 1) % world)]
for w in dist.batch_isend_irecv(ops):
    w.wait()
lines.append(f"ring got {recv.tolist()}")

if rank == 0:
    dist.send_object_list([{"a": 1}, "two", (3.0,)], dst=1)
else:
    objs = [None, None, None]
    src = dist.recv_object_list(objs, src=0)
    lines.append(f"objects from {src}: {objs}")

mine, groups = dist.new_subgroups(group_size=1)
t = torch.ones(2) * (rank + 1)
dist.all_reduce(t, group=mine)
lines.append(f"subgroups {len(groups)} own sum {t.tolist()} ranks {dist.get_process_group_ranks(mine)}")
mine, groups = dist.new_subgroups_by_enumeration([[0, 1]])
t = torch.ones(2) * (rank + 1)
dist.all_reduce(t, group=mine)
lines.append(f"enumerated {len(groups)} sum {t.tolist()}")
dist.monitored_barrier()
# one os.write: whole lines, so the two ranks' outputs cannot interleave mid-line (print writes the text and
# its newline separately when stdout is unbuffered)
os.write(1, "".join(f"R{rank} {s}\n" for s in lines).encode())
dist.destroy_process_group()
