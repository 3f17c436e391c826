"""DataLoader worker processes: the loop run in each child, fetchers, error wrapping and batch transport.

Workers are started with the ``spawn`` start method (JAX deadlocks in forked children). The dataset,
``collate_fn`` and ``worker_init_fn`` travel once as a pickled blob (plain pickle, or cloudpickle when
installed for what pickle refuses, such as lambdas); batches come back as numpy arrays (``_pack``) and are
rebuilt as Tensors in the parent (``_unpack``).
"""
from __future__ import annotations

import collections.abc
import os
import pickle
import queue
import random
import sys
import traceback
from dataclasses import dataclass

import numpy as np

from ... import _random
from ..._creation import _host_or_put, from_numpy
from ..._device import canonical, device
from ...tensor import Tensor
from ._collate import default_collate
from .dataset import Subset, TensorDataset

__all__ = ["WorkerInfo", "get_worker_info"]

# how often a blocked worker / main process wakes to check that the other side is alive
MP_STATUS_CHECK_INTERVAL = 1.0

_worker_info = None


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker: ``id``, ``num_workers``, ``seed`` and this
    worker's copy of ``dataset``."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


def get_worker_info():
    """Information about the current DataLoader worker process, or ``None`` in the main process.

    >>> from torchlike.utils.data import get_worker_info
    >>> get_worker_info() is None
    True
    """
    return _worker_info


# ---- exceptions across processes ---------------------------------------------------------------
class KeyErrorMessage(str):
    """str whose repr is itself, so a re-raised KeyError shows a readable multi-line message."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception type + formatted traceback, picklable, re-raised in the main process."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def __reduce__(self):
        # an exception class that cannot be found by name in the parent degrades to RuntimeError
        try:
            pickle.dumps(self.exc_type)
            t = self.exc_type
        except Exception:
            t = RuntimeError
        return (_rebuild_wrapper, (t, self.exc_msg, self.where))

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


def _rebuild_wrapper(t, msg, where):
    w = ExceptionWrapper.__new__(ExceptionWrapper)
    w.exc_type, w.exc_msg, w.where = t, msg, where
    return w


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    seed: object = None


# ---- fetchers (shared by the single-process iterator and workers) ------------------------------
class _BaseDatasetFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last


class _IterableDatasetFetcher(_BaseDatasetFetcher):
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in possibly_batched_index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(possibly_batched_index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


class _MapDatasetFetcher(_BaseDatasetFetcher):
    def fetch(self, possibly_batched_index):
        if self.auto_collation:
            fast = _tensor_dataset_batch(self.dataset, possibly_batched_index, self.collate_fn)
            if fast is not None:
                return fast
            if hasattr(self.dataset, "__getitems__") and self.dataset.__getitems__:
                data = self.dataset.__getitems__(possibly_batched_index)
            else:
                data = [self.dataset[idx] for idx in possibly_batched_index]
        else:
            data = self.dataset[possibly_batched_index]
        return self.collate_fn(data)


def _tensor_dataset_batch(dataset, indices, collate_fn):
    """``default_collate([ds[i] for i in indices])`` for a (Subset of a) TensorDataset as one gather per
    tensor instead of ``len(indices)`` index ops and a stack; same values, dtypes and structure."""
    if collate_fn is not default_collate:
        return None
    ds, idx = dataset, indices
    while type(ds) is Subset:
        try:
            idx = [ds.indices[i] for i in idx]
        except (IndexError, TypeError):
            return None
        ds = ds.dataset
    if type(ds) is not TensorDataset or not idx:
        return None
    try:
        arr = np.asarray(idx, dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        return None
    n = len(ds)
    if arr.ndim != 1 or arr.min() < -n or arr.max() >= n:
        return None  # let per-item indexing raise torch's IndexError
    index = from_numpy(np.where(arr < 0, arr + n, arr))
    return [t[index] for t in ds.tensors]  # default_collate turns the sample tuple into a list


# ---- batch transport: Tensors -> numpy in the child, numpy -> Tensors in the parent --------------
class _Packed:
    __slots__ = ("array", "device")

    def __init__(self, array, device):
        self.array, self.device = array, device

    def __reduce__(self):
        return (_Packed, (self.array, self.device))


def _pack(data):
    if type(data) is Tensor and not data.requires_grad:
        h = data._host_array()  # a host tensor's array: no device (no JAX backend) in the worker
        return _Packed(np.asarray(data._value) if h is None else h, str(data.device))
    if isinstance(data, (list, tuple, dict)):
        return _map_container(data, _pack)
    return data  # anything else pickles normally (Tensor subclasses via Tensor.__reduce_ex__)


def _unpack(data):
    if type(data) is _Packed:
        # the unpickled array is this process's own: the batch stays on the host until it is used
        return _host_or_put(np.asarray(data.array), canonical(device(data.device)), False, cap=float("inf"))
    if isinstance(data, (list, tuple, dict)):
        return _map_container(data, _unpack)
    return data


def _map_container(data, fn):
    t = type(data)
    if t is list:
        return [fn(d) for d in data]
    if t is tuple:
        return tuple(fn(d) for d in data)
    if t is dict:
        return {k: fn(v) for k, v in data.items()}
    try:
        if isinstance(data, tuple) and hasattr(data, "_fields"):
            return t(*(fn(d) for d in data))
        if isinstance(data, collections.abc.Mapping):
            return t({k: fn(v) for k, v in data.items()})
        return t([fn(d) for d in data])
    except Exception:  # an exotic container: let pickle carry it as it is
        return data


# ---- seeding (torch's worker seeding scheme) ---------------------------------------------------
def _generate_state(base_seed, worker_id):
    """numpy's SeedSequence-style mixing of (base_seed, worker_id), as torch seeds numpy in workers."""
    INIT_A, MULT_A, INIT_B, MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
    MIX_MULT_L, MIX_MULT_R, XSHIFT, MASK32 = 0xCA01F9DD, 0x4973F715, 16, 0xFFFFFFFF
    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    pool = [0] * 4
    hash_const_a = INIT_A

    def hash_(value):
        nonlocal hash_const_a
        value = (value ^ hash_const_a) & MASK32
        hash_const_a = (hash_const_a * MULT_A) & MASK32
        value = (value * hash_const_a) & MASK32
        return (value ^ (value >> XSHIFT)) & MASK32

    def mix(x, y):
        r = (((MIX_MULT_L * x) & MASK32) - ((MIX_MULT_R * y) & MASK32)) & MASK32
        return (r ^ (r >> XSHIFT)) & MASK32

    for i in range(4):
        pool[i] = hash_(entropy[i])
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash_(pool[i_src]))
    hash_const_b = INIT_B
    state = []
    for i_dst in range(4):
        v = (pool[i_dst] ^ hash_const_b) & MASK32
        hash_const_b = (hash_const_b * MULT_B) & MASK32
        v = (v * hash_const_b) & MASK32
        state.append((v ^ (v >> XSHIFT)) & MASK32)
    return state


def _dumps(obj):
    """Pickle by reference like torch's spawn path (so classes from ``__main__`` stay the same classes);
    fall back to cloudpickle, when installed, for what plain pickle refuses (lambdas, local classes)."""
    try:
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:
        err = e
    try:
        import cloudpickle
    except ImportError:
        raise err from None
    return cloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def _serialize_result(idx, data, worker_id):
    # pickled here rather than in the queue's feeder thread, where a failure would be printed and the
    # batch silently lost (the main process would then wait forever)
    try:
        return _dumps((idx, data))
    except Exception:
        return pickle.dumps((idx, ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")))


# ---- the worker process ------------------------------------------------------------------------
def _worker_loop(dataset_kind, payload, index_queue, data_queue, done_event, auto_collation, drop_last,
                 base_seed, worker_id, num_workers, persistent_workers):
    global _worker_info
    try:
        manager_pid = os.getppid()
        init_exception = None
        fetcher = dataset = collate_fn = None
        ready = False
        try:
            # unpickling imports torchlike (and the user's modules) in this fresh process
            dataset, collate_fn, init_fn = pickle.loads(payload)
            seed = base_seed + worker_id
            random.seed(seed)
            _random.manual_seed(seed)
            np.random.seed(_generate_state(base_seed, worker_id))
            _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _make_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
            ready = True
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        iteration_end = False
        while True:
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if os.getppid() != manager_pid:
                    break  # the main process died
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                if ready:
                    fetcher = _make_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            elif not ready:  # setup failed and was reported: this worker has nothing to give
                data = _IterableDatasetStopIteration(worker_id) if dataset_kind == 1 else \
                    ExceptionWrapper((RuntimeError, RuntimeError("worker setup failed earlier"), None),
                                     where=f"in DataLoader worker process {worker_id}")
            else:
                try:
                    data = _pack(fetcher.fetch(index))
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == 1:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put(_serialize_result(idx, data, worker_id))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()


def _make_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
    cls = _IterableDatasetFetcher if kind == 1 else _MapDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
