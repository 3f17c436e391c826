"""Collective misuse across ranks, run by tests/test_distributed_faults.py under torchrun (torch, with
TORCH_DISTRIBUTED_DEBUG=DETAIL) and under torchlike's launcher: each rank records the exception type and message
of every attempt in OUT/faults{R}.json; the test compares torchlike's with torch's."""
import datetime
import json
import os
import sys
import time

import torch
import torch.distributed as dist

out_dir, timeout_s = sys.argv[1], float(sys.argv[2])
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout_s))
r = dist.get_rank()
res = {}


def attempt(name, fn):
    try:
        fn()
        res[name] = "ok"
    except Exception as e:  # noqa: BLE001 - recorded for comparison
        res[name] = [type(e).__name__, str(e)]


attempt("shape", lambda: dist.all_reduce(torch.ones(3 + r)))
attempt("dtype", lambda: dist.all_reduce(torch.ones(3, dtype=torch.float32 if r == 0 else torch.float64)))
attempt("shape_2d", lambda: dist.broadcast(torch.ones(2, 3) if r == 0 else torch.ones(3, 2), 0))
attempt("op", lambda: dist.all_reduce(torch.ones(3)) if r == 0 else dist.broadcast(torch.ones(3), 0))
attempt("all_gather", lambda: dist.all_gather([torch.zeros(2 + r) for _ in range(2)], torch.ones(2 + r)))
t = torch.full((2,), float(r + 1))
dist.all_reduce(t)  # the group still works after the mismatches
res["after"] = t.tolist()
dist.barrier()


def save():
    with open(os.path.join(out_dir, f"faults{r}.json"), "w") as f:
        json.dump(res, f)


if r == 1:  # does not join the next collective: rank 0's times out
    save()
    time.sleep(timeout_s + 3)
else:
    t0 = time.time()
    attempt("timeout", lambda: dist.all_reduce(torch.ones(2)))
    res["timeout_s"] = time.time() - t0
    save()
print("done", r, flush=True)
os._exit(0)  # the timed-out collective left the process group unusable
