"""Stores shared by two spawned processes (TCPStore or FileStore, via argv), their operations, and
init_process_group(store=PrefixStore(...)) followed by collectives; rank 0 prints every rank's lines."""
import datetime
import os
import socket
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world, kind, where):
    timeout = datetime.timedelta(seconds=60)
    if kind == "tcp":
        store = dist.TCPStore("127.0.0.1", where, world, rank == 0, timeout=timeout)
    else:
        store = dist.FileStore(where, world)
        store.set_timeout(timeout)
    store.set(f"hello/{rank}", f"from {rank}")
    other = store.get(f"hello/{1 - rank}")
    total = store.add("count", rank + 1)
    store.wait(["hello/0", "hello/1"])
    store.add("arrived", 1)
    while int(store.get("arrived")) < world:
        pass
    cas = store.compare_set("leader", "", f"rank{rank}") if rank == 0 else None
    store.wait(["leader"])
    leader = store.get("leader")
    mine = [f"R{rank} got {other!r} add {type(total).__name__} check {store.check(['count', 'hello/0'])} "
            f"{store.check(['nope'])} leader {leader!r} cas {cas!r} count {store.get('count')!r}"]
    pg_store = dist.PrefixStore("pg", store)
    dist.init_process_group("gloo", store=pg_store, rank=rank, world_size=world)
    t = torch.arange(3, dtype=torch.float32) + rank
    dist.all_reduce(t)
    mine.append(f"R{rank} world {dist.get_world_size()} all_reduce {t.tolist()}")
    lines = [None] * world
    dist.all_gather_object(lines, "\n".join(mine))
    if rank == 0:
        os.write(1, ("\n".join(lines) + "\n").encode())
    dist.barrier()
    dist.destroy_process_group()


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "tcp"
    if kind == "tcp":
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            where = s.getsockname()[1]
    else:
        where = os.path.join(tempfile.mkdtemp(), "filestore")
    mp.spawn(worker, args=(2, kind, where), nprocs=2)


if __name__ == "__main__":
    main()
