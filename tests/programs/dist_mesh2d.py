"""A 2-d DeviceMesh (dp x tp) over 4 ranks: each dim's process group, collectives over it, local ranks and
sub-meshes. Each rank writes its lines with one os.write."""
import os

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    out = [f"R{rank} coord {mesh.get_coordinate()} local dp {mesh.get_local_rank('dp')} tp {mesh.get_local_rank('tp')}"]
    for name in ("dp", "tp"):
        g = mesh.get_group(name)
        t = torch.tensor([float(rank + 1), 10.0 * (rank + 1)])
        dist.all_reduce(t, group=g)
        parts = [torch.zeros(1) for _ in range(dist.get_world_size(g))]
        dist.all_gather(parts, torch.tensor([float(rank)]), group=g)
        sub = mesh[name]
        out.append(f"R{rank} {name} size {dist.get_world_size(g)} group rank {dist.get_rank(g)} "
                   f"ranks {dist.get_process_group_ranks(g)} sum {t.tolist()} gather {[p.item() for p in parts]} "
                   f"sub {sub.size()} {sub.get_local_rank()} same {dist.get_process_group_ranks(sub.get_group())}")
    try:
        mesh.get_group()
    except RuntimeError as e:
        out.append(f"R{rank} error {e.args}")
    os.write(1, ("\n".join(out) + "\n").encode())
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
