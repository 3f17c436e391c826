"""DataLoader (torch.utils.data.dataloader): batching, sampling, and multi-process loading.

Worker processes are never forked from the main process: JAX's runtime is multithreaded and any JAX
computation in a forked child hangs. By default each worker is forked from a private fork server that
imported torchlike without starting a JAX backend (``_worker_start.py``): a fresh process per worker per
epoch, as with ``spawn``, without paying the imports again; ``spawn`` is the fallback. Workers run on
JAX's CPU backend (``JAX_PLATFORMS=cpu``) and send batches back as numpy arrays; see ``_worker.py``.

Layout: ``DataLoader`` only validates options and decides *what* to index (sampler / batch sampler);
an iterator object made per epoch (or once, with persistent workers) decides *where* the indexing runs:
``_SingleProcessDataLoaderIter`` here, ``_MultiProcessingDataLoaderIter`` in worker processes.
"""
from __future__ import annotations

import atexit
import itertools
import multiprocessing
import os
import pickle
import queue
import sys
import types
import warnings
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ... import _dtype, accelerator
from ..._creation import empty
from . import _worker, _worker_start
from ._collate import default_collate, default_convert
from ._utils.pin_memory import pin_memory as _pin
from ._worker import ExceptionWrapper, get_worker_info, MP_STATUS_CHECK_INTERVAL
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

# torch's typing aliases (libraries annotate with them: opacus imports _collate_fn_t)
_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)
_worker_init_fn_t = Callable[[int], None]
_collate_fn_t = Callable[[list[_T]], Any]

# Flipped when the interpreter starts exiting. By then multiprocessing reaps daemonic workers itself,
# and talking to their queues from a finalizer can block forever.
_interpreter_exiting = [False]
atexit.register(_interpreter_exiting.__setitem__, 0, True)


class _DatasetKind:
    """Map-style or iterable-style dataset (the numeric values are torch's)."""

    Map, Iterable = 0, 1
    create_fetcher = staticmethod(_worker._make_fetcher)


class _InfiniteConstantSampler(Sampler):
    """The index stream of an iterable-style dataset: ``None``, forever (the dataset decides when to stop)."""

    def __iter__(self):
        return itertools.repeat(None)


# options that define the sequence of batches; changing them on a built loader would desynchronise
# its sampler and batch sampler, so torch forbids it
_FIXED_AFTER_INIT = frozenset({"batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                               "persistent_workers"})


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers):
    """Validate the multi-process options; returns the effective ``prefetch_factor``."""
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                         "multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if prefetch_factor is None:
        prefetch_factor = 2 if num_workers > 0 else None
    elif num_workers == 0:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing.let "
                         "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
    elif prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and not num_workers:
        raise ValueError("persistent_workers option needs num_workers > 0")
    return prefetch_factor


def _check_iterable_options(shuffle, sampler, batch_sampler):
    # an IterableDataset yields its own order: nothing may index it
    given = (("shuffle", shuffle, shuffle not in {False, None}), ("sampler", sampler, sampler is not None),
             ("batch_sampler", batch_sampler, batch_sampler is not None))
    for name, value, bad in given:
        if bad:
            raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} option, "
                             f"but got {name}={value}")


def _plan_indices(dataset, iterable, batch_size, shuffle, sampler, batch_sampler, drop_last, generator):
    """Resolve the sampling options into ``(batch_size, drop_last, sampler, batch_sampler)``."""
    if shuffle and sampler is not None:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if batch_sampler is not None:
        if sampler is not None or shuffle or drop_last or batch_size != 1:
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                             "and drop_last")
        # the batch sampler decides batch sizes; the loader's own options are neutralised
        batch_size, drop_last = None, False
    elif batch_size is None and drop_last:
        raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                         "drop_last")
    if sampler is None:
        if iterable:
            sampler = _InfiniteConstantSampler()
        else:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
    if batch_sampler is None and batch_size is not None:
        batch_sampler = BatchSampler(sampler, batch_size, drop_last)
    return batch_size, drop_last, sampler, batch_sampler


def _resolve_context(ctx, num_workers):
    """A ``multiprocessing_context`` option (start-method name or context object) as a context object."""
    if num_workers <= 0:
        raise ValueError(f"multiprocessing_context can only be used with multi-process loading "
                         f"(num_workers > 0), but got num_workers={num_workers}")
    if isinstance(ctx, str):
        methods = multiprocessing.get_all_start_methods()
        if ctx not in methods:
            raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                             f"{methods!r}, but got multiprocessing_context={ctx!r}")
        ctx = multiprocessing.get_context(ctx)
    if not isinstance(ctx, multiprocessing.context.BaseContext):
        raise TypeError(f"multiprocessing_context option should be a valid context object or a "
                        f"string specifying the start method, but got multiprocessing_context={ctx}")
    return ctx  # ('fork' after JAX's runtime started: torchlike._fork_guard warns at the first fork)


def _usable_cpus():
    """(CPUs this process may run on, whether CPU affinity was taken into account)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)), True
    return os.cpu_count(), False


class DataLoader(Generic[_T_co]):
    """Iterate a dataset in (shuffled, collated) batches, optionally with worker processes.

    Arguments and behaviour follow ``torch.utils.data.DataLoader``. ``num_workers > 0`` starts real
    processes, fresh ones every epoch unless ``persistent_workers=True`` (forked from a server that has
    already imported torchlike, else spawned): datasets, ``collate_fn`` and ``worker_init_fn`` must be
    picklable (cloudpickle covers lambdas and local functions); the main script is never re-run by the
    workers, guarded or not (its objects travel by value), as under torch's fork. ``pin_memory`` is accepted and has no effect.

    >>> import torchlike
    >>> from torchlike.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(torchlike.arange(10.0), torchlike.arange(10))
    >>> loader = DataLoader(ds, batch_size=4, shuffle=True, generator=torchlike.Generator().manual_seed(0))
    >>> [tuple(x.shape) for x, y in loader]
    [(4,), (4,), (2,)]
    """

    # torch's (name-mangled) "construction finished" flag; some libraries reset it to edit a loader
    _DataLoader__initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None,
                 persistent_workers=False, pin_memory_device="", in_order=True):
        prefetch_factor = _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers)
        process_options = dict(dataset=dataset, num_workers=num_workers, timeout=timeout,
                               prefetch_factor=prefetch_factor, worker_init_fn=worker_init_fn,
                               pin_memory=pin_memory, pin_memory_device=pin_memory_device, in_order=in_order)
        for name, value in process_options.items():
            setattr(self, name, value)
        self.multiprocessing_context = multiprocessing_context  # validated by the property setter

        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        else:
            shuffle = bool(shuffle)
        self._dataset_kind = _DatasetKind.Iterable if iterable else _DatasetKind.Map
        batch_size, drop_last, sampler, batch_sampler = _plan_indices(
            dataset, iterable, batch_size, shuffle, sampler, batch_sampler, drop_last, generator)

        self.generator = generator
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.persistent_workers = persistent_workers
        if collate_fn is None:
            # batches are stacked; single samples (batch_size=None) only get numpy -> Tensor conversion
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self._DataLoader__initialized = True
        self._IterableDataset_len_called = None  # set by len(): lets iterators warn when a dataset overruns
        self._iterator = None  # the reused iterator when persistent_workers=True
        self.check_worker_number_rationality()
        if num_workers > 0 and multiprocessing_context is None:
            _worker_start.warm_up()  # the workers' fork server imports JAX while the caller goes on

    # ---- attributes ------------------------------------------------------------------------------
    @property
    def multiprocessing_context(self):
        return self._mp_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        ctx = multiprocessing_context
        self._mp_context = None if ctx is None else _resolve_context(ctx, self.num_workers)

    def __setattr__(self, attr, val):
        if attr in _FIXED_AFTER_INIT and self._DataLoader__initialized:
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is "
                             f"initialized")
        super().__setattr__(attr, val)

    # with a batch sampler the fetcher receives lists of indices and collates; without, single indices
    _auto_collation = property(lambda self: self.batch_sampler is not None)
    _index_sampler = property(lambda self: self.sampler if self.batch_sampler is None else self.batch_sampler)

    # ---- iteration -------------------------------------------------------------------------------
    def _get_iterator(self):
        if not self.num_workers:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        if not (self.persistent_workers and self.num_workers > 0):
            return self._get_iterator()
        # persistent workers: one iterator, and so one set of processes, serves every epoch
        it = self._iterator
        if it is not None:
            it._reset(self)
        else:
            it = self._iterator = self._get_iterator()
        return it

    def __len__(self):
        if self._dataset_kind != _DatasetKind.Iterable:
            return len(self._index_sampler)
        n = self._IterableDataset_len_called = len(self.dataset)
        if self.batch_size is None:
            return n
        full, partial = divmod(n, self.batch_size)
        return full + int(bool(partial) and not self.drop_last)

    def check_worker_number_rationality(self):
        if not self.num_workers:
            return
        cpus, affinity_known = _usable_cpus()
        if cpus is not None and self.num_workers <= cpus:
            return
        if cpus is None:
            why = "DataLoader is not able to compute a suggested max number of worker in current system."
        else:
            note = "" if affinity_known else " (`cpuset` is not taken into account)"
            why = (f"Our suggested max number of worker in current system is {cpus}{note}, which is smaller "
                   f"than what this DataLoader is going to create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. {why} "
                      "Please be aware that excessive worker creation might get DataLoader running slow or "
                      "even freeze, lower the worker number to avoid potential slowness/freeze if "
                      "necessary.", stacklevel=2)


def _accelerator_available():
    try:
        return bool(accelerator.is_available())
    except Exception:
        return False


class _BaseDataLoaderIter:
    """What both iterators share: the index stream, the epoch's base seed and the overrun warning."""

    def __init__(self, loader):
        self._dataset = loader.dataset
        self._kind = loader._dataset_kind
        self._index_sampler = loader._index_sampler
        self._batched = loader._auto_collation
        self._collate_fn = loader.collate_fn
        self._drop_last = loader.drop_last
        self._num_workers = loader.num_workers
        self._persistent_workers = loader.persistent_workers
        self._timeout = loader.timeout
        self._claimed_len = loader._IterableDataset_len_called
        if loader.pin_memory:
            if loader.pin_memory_device:
                warnings.warn("pin_memory_device is deprecated, the current accelerator will be used as the "
                              f"device,ignore pin_memory_device='{loader.pin_memory_device}'.", stacklevel=3)
            if not _accelerator_available():
                warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device "
                              "pinned memory won't be used.", stacklevel=3)
        # with a GPU, batches are pinned as torch pins them (JAX stages the copies: a flagged copy)
        self._pin_memory = bool(loader.pin_memory) and _accelerator_available()
        self._sampler_iter = iter(self._index_sampler)
        # drawn even without workers, as torch does, so the loader's generator advances identically
        self._base_seed = empty((), dtype=_dtype.int64).random_(generator=loader.generator).item()
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", type(self).__name__)

    def _reset(self, loader, first_iter=False):
        """Start a new epoch over the same loader."""
        self._claimed_len = loader._IterableDataset_len_called
        self._num_yielded = 0
        self._sampler_iter = iter(self._index_sampler)

    def _next_index(self):
        return next(self._sampler_iter)  # StopIteration ends the epoch

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        batch = self._next_data()
        if self._pin_memory:
            batch = _pin(batch)
        self._num_yielded += 1
        claimed = self._claimed_len
        if claimed is not None and self._kind == _DatasetKind.Iterable and self._num_yielded > claimed:
            self._warn_overrun(claimed)
        return batch

    def _warn_overrun(self, claimed):
        msg = (f"Length of IterableDataset {self._dataset} was reported to be {claimed}(when accessing "
               f"len(dataloader)), but {self._num_yielded} samples have been fetched. ")
        if self._num_workers > 0:
            msg += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                    "IterableDataset replica at each worker. Please see "
                    "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
        warnings.warn(msg, stacklevel=3)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Indexes and collates in the calling process."""

    def __init__(self, loader):
        super().__init__(loader)
        if self._timeout:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._fetcher = _DatasetKind.create_fetcher(self._kind, self._dataset, self._batched, self._collate_fn,
                                                    self._drop_last)

    def _next_data(self):
        return self._fetcher.fetch(self._next_index())




_NOTHING = object()  # what _poll returns when no message arrived in time


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Batches computed by ``num_workers`` spawned processes.

    Every index (or list of indices) becomes a numbered task sent to one worker's own queue, round-robin;
    all results come back on one shared queue tagged with their task number. Up to
    ``prefetch_factor * num_workers`` tasks are in flight; each batch handed out sends one more. With
    ``in_order`` results are released by task number (early ones wait in ``_early``); without it, as they
    arrive, and new tasks go to workers with less than their share of the outstanding ones.
    """

    def __init__(self, loader):
        super().__init__(loader)
        self._in_order = loader.in_order
        self._prefetch_factor = loader.prefetch_factor
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        self._shutdown = False
        self._workers, self._index_queues, self._stopped = [], [], set()
        self._active = []
        ctx = loader.multiprocessing_context or _worker_start.default_context()
        script = _main_is_a_script()
        blob = _pickle_worker_args(loader.dataset, self._collate_fn, loader.worker_init_fn, ctx, script)
        self._results = ctx.Queue()
        self._done = ctx.Event()
        for wid in range(self._num_workers):
            tasks = ctx.Queue()
            tasks.cancel_join_thread()  # a worker may exit without draining it; don't block our exit on it
            proc = ctx.Process(target=_worker._worker_loop, daemon=True,
                               args=(self._kind, blob, tasks, self._results, self._done, self._batched,
                                     self._drop_last, self._base_seed, wid, self._num_workers,
                                     self._persistent_workers))
            _start_on_cpu(proc, without_main=script)
            self._workers.append(proc)
            self._index_queues.append(tasks)
        self._reset(loader, first_iter=True)

    # ---- epochs ----------------------------------------------------------------------------------
    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        n = self._num_workers
        self._sent = 0  # number of the next task to send
        self._next_out = 0  # number of the next task to hand out (in_order)
        self._owner = {}  # task number -> worker, until the task's batch is handed out
        self._early = {}  # task number -> batch that arrived before its turn
        self._active = [True] * n  # workers still serving this epoch (iterable ones stop when dry)
        self._load = [0] * n  # tasks each worker holds
        self._turn = itertools.cycle(range(n))
        if not first_iter:
            # persistent workers: rewind every worker and drop whatever the last epoch left in flight
            for tasks in self._index_queues:
                tasks.put(_worker._ResumeIteration())
            acks = 0
            while acks < n:
                if isinstance(self._get_data()[0], _worker._ResumeIteration):
                    acks += 1
        for _ in range(self._prefetch_factor * n):
            self._dispatch()

    def _dispatch(self):
        """Send the next index to a worker; nothing happens once the sampler is exhausted or no worker
        may take another task (the index is consumed all the same, as in torch)."""
        index = next(self._sampler_iter, _NOTHING)
        if index is _NOTHING:
            return
        wid = self._choose_worker()
        if wid is None:
            return
        task = self._sent
        self._index_queues[wid].put((task, index))
        self._owner[task] = wid
        self._load[wid] += 1
        self._sent = task + 1

    def _choose_worker(self):
        share = self._prefetch_factor * self._num_workers
        for _ in range(self._num_workers):
            wid = next(self._turn)
            if not self._active[wid]:
                continue
            if self._in_order or self._load[wid] < share // sum(self._active):
                return wid
        return None

    # ---- receiving -------------------------------------------------------------------------------
    def _poll(self, timeout):
        try:
            msg = self._results.get(timeout=timeout)
            # batches come pickled by the worker itself; control replies come as plain tuples
            return pickle.loads(msg) if isinstance(msg, bytes) else msg
        except Exception as exc:
            lost = [wid for wid, proc in enumerate(self._workers) if self._active[wid] and not proc.is_alive()]
            for wid in lost:
                self._stop_worker(wid)
            if lost:
                pids = ", ".join(str(self._workers[wid].pid) for wid in lost)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly. Workers are started "
                                   f"with 'spawn': see the worker's stderr; a script that starts DataLoader "
                                   f"workers needs an `if __name__ == '__main__':` guard") from exc
            if isinstance(exc, queue.Empty):
                return _NOTHING
            raise

    def _get_data(self):
        """The next ``(task, payload)`` message; waits ``timeout`` seconds, or forever when it is 0 (waking
        regularly to notice dead workers)."""
        if self._timeout > 0:
            msg = self._poll(self._timeout)
            if msg is _NOTHING:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            return msg
        msg = _NOTHING
        while msg is _NOTHING:
            msg = self._poll(MP_STATUS_CHECK_INTERVAL)
        return msg

    def _awaited_task(self):
        """The task whose batch comes next in order, or None when the epoch is over. Tasks already handed
        out (in_order=False) and tasks of workers that ran dry are passed over."""
        while self._next_out < self._sent:
            task = self._next_out
            if task in self._early:
                return task
            wid = self._owner.get(task)
            if wid is not None and self._active[wid]:
                return task
            self._owner.pop(task, None)
            self._next_out += 1
        return None

    def _next_data(self):
        while True:
            task = self._awaited_task()
            if task is None:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if task in self._early:
                self._next_out += 1
                return self._hand_out(task, self._early.pop(task))
            got, payload = self._get_data()
            if self._kind == _DatasetKind.Iterable and isinstance(payload, _worker._IterableDatasetStopIteration):
                # that worker's dataset replica is exhausted; the others carry on
                if self._persistent_workers:
                    self._active[payload.worker_id] = False
                else:
                    self._stop_worker(payload.worker_id)
                self._dispatch()
            elif got == task:
                self._next_out += 1
                return self._hand_out(got, payload)
            elif not self._in_order:
                return self._hand_out(got, payload)
            else:
                self._early[got] = payload

    def _hand_out(self, task, payload):
        wid = self._owner.pop(task)
        self._load[wid] -= 1
        self._dispatch()  # keep the pipeline full before (possibly) raising the worker's error
        if isinstance(payload, ExceptionWrapper):
            payload.reraise()
        return _worker._unpack(payload)

    # ---- shutdown --------------------------------------------------------------------------------
    def _stop_worker(self, wid):
        """Tell worker ``wid`` to exit (once) and stop giving it tasks."""
        if wid not in self._stopped:
            self._stopped.add(wid)
            self._index_queues[wid].put(None)
        self._active[wid] = False

    def _shutdown_workers(self):
        if self._shutdown or _interpreter_exiting[0]:
            return
        self._shutdown = True
        try:
            self._done.set()
            for wid in range(len(self._workers)):
                self._stop_worker(wid)
            for proc in self._workers:
                proc.join(timeout=MP_STATUS_CHECK_INTERVAL)
            for channel in (*self._index_queues, self._results):
                channel.cancel_join_thread()
                channel.close()
        finally:
            for proc in self._workers:
                if proc.is_alive():  # stuck (e.g. in user code): don't leave it behind
                    proc.terminate()
                    proc.join(timeout=MP_STATUS_CHECK_INTERVAL)

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:
            pass


def _main_is_a_script():
    """True when ``__main__`` is a script file (not ``python -m module``) and cloudpickle can send its objects
    by value. torch forks its workers: they never re-run the script, guarded or not (its top-level prints and
    side effects happen once) and see its objects as they are; a spawned child would re-run it as
    ``__mp_main__`` (and start workers again where there is no ``if __name__ == ...`` guard)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if not path or not path.endswith(".py") or getattr(main, "__spec__", None) is not None:
        return False
    try:
        import cloudpickle  # noqa: F401  (needed to send __main__'s objects by value)
    except ImportError:
        return False
    return True


def _pickle_worker_args(dataset, collate_fn, worker_init_fn, ctx, by_value=False):
    try:
        if by_value:  # the child will not import the script: send __main__'s classes and functions by value
            import cloudpickle
            return cloudpickle.dumps((dataset, collate_fn, worker_init_fn), protocol=pickle.HIGHEST_PROTOCOL)
        return _worker._dumps((dataset, collate_fn, worker_init_fn))
    except Exception as e:
        msg = (f"DataLoader with num_workers > 0 could not pickle the dataset, collate_fn or worker_init_fn "
               f"({type(e).__name__}: {e}). torchlike starts workers with the "
               f"'{ctx.get_start_method()}' start method (JAX cannot run in forked processes), so these must be "
               f"picklable: define them at module level and guard the script with "
               f"`if __name__ == '__main__':`.")
        err = pickle.PicklingError(msg) if isinstance(e, pickle.PicklingError) else None
        if err is None:
            try:
                err = type(e)(msg)
            except Exception:
                err = RuntimeError(msg)
        raise err from e


def _start_on_cpu(w, without_main=False):
    # workers produce host data: keep each child's JAX on the CPU backend so it neither initialises
    # nor reserves memory on the accelerator the main process is using
    saved = {k: os.environ.get(k) for k in _worker_start.WORKER_ENV}
    os.environ.update(_worker_start.WORKER_ENV)
    main = sys.modules.get("__main__")
    if without_main:  # a script: spawn's child must not re-run it (torch's forked workers never do)
        sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        w.start()
    finally:
        if without_main:
            sys.modules["__main__"] = main
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
