"""Hogwild-style training (pytorch/examples mnist_hogwild's shape): a model in shared memory trained by child
processes started with torch.multiprocessing.Process; the parent sees their updates. Children run one after
another so the result is deterministic; also a spawn context, a tensor sent through a Queue to a running
process, .data aliases and plain pickling (a copy)."""
import pickle

import torch
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F


def train(rank, model, steps):
    torch.manual_seed(10 + rank)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    for _ in range(steps):
        x = torch.randn(16, 4)
        y = (x.sum(1) > 0).long()
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


def bump(t, q, done):
    while True:
        item = q.get()
        if item is None:
            break
        item.add_(t)
        done.put(float(item.sum()))


def show(tag, model, x, y):
    with torch.no_grad():
        loss = F.cross_entropy(model(x), y).item()
    print(tag, f"loss {loss:.5f}", "sums", [round(float(p.sum()), 4) for p in model.parameters()], flush=True)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    model.share_memory()
    print("shared", all(p.is_shared() for p in model.parameters()), "data", model[0].weight.data.is_shared())
    x = torch.randn(64, 4)
    y = (x.sum(1) > 0).long()
    show("start", model, x, y)
    for rank in range(2):
        p = mp.Process(target=train, args=(rank, model, 5))
        p.start()
        p.join()
        print("exit", p.exitcode)
        show(f"after rank {rank}", model, x, y)
    ctx = mp.get_context("spawn")
    p = ctx.Process(target=train, args=(2, model, 3))
    p.start()
    p.join()
    show("after spawn", model, x, y)

    t = torch.zeros(3)
    copy = pickle.loads(pickle.dumps(t.share_memory_()))
    print("pickled copy shared", copy.is_shared())
    q, done = ctx.Queue(), ctx.Queue()
    w = ctx.Process(target=bump, args=(torch.ones(3), q, done))
    w.start()
    shared = torch.arange(3.0).share_memory_()
    q.put(shared)
    print("worker saw", done.get(timeout=120))
    q.put(None)
    w.join()
    print("after queue", shared.tolist(), "copy", copy.tolist())
