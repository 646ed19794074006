"""The worker pool of the campaign tools (tools/differential_campaign.py, tools/chat_campaign.py): case seeds in,
(seed, outcome) out in completion order, each case in a worker process with a memory limit and a time limit.

A worker runs `work(seed)` for each seed it is given; a case that takes longer than `timeout` seconds has its
worker killed and replaced, and its outcome is `timed_out(seed, timeout)`. Workers are forked, so `work` may be
any function (a closure over data loaded before the pool starts).
"""

import multiprocessing
import time
import warnings
from multiprocessing.connection import wait

__all__ = ["outcomes", "MEMORY_LIMIT"]

MEMORY_LIMIT = 4 * 1024 ** 3


def _serve(conn, work):
    """Worker: seed in, (seed, outcome) out, until the pipe closes."""
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))   # fail with MemoryError instead
    except (ImportError, ValueError, OSError):
        pass
    warnings.simplefilter("ignore")   # Python's compiler on Jinja2's generated code, invalid escapes
    while True:
        try:
            seed = conn.recv()
        except EOFError:
            return
        conn.send((seed, work(seed)))


class _Worker:
    def __init__(self, work):
        self.conn, child = multiprocessing.Pipe()
        self.process = multiprocessing.Process(target=_serve, args=(child, work), daemon=True)
        self.process.start()
        child.close()
        self.seed = None
        self.since = None

    def give(self, seed):
        self.seed, self.since = seed, time.time()
        self.conn.send(seed)

    def stop(self):
        self.process.kill()
        self.process.join()


def outcomes(seeds, jobs, timeout, work, timed_out):
    """(seed, outcome) for every seed, in completion order."""
    pending = list(reversed(seeds))
    workers = [_Worker(work) for _ in range(jobs)]
    busy = {}
    try:
        while pending or busy:
            for worker in workers:
                if worker.seed is None and pending:
                    worker.give(pending.pop())
                    busy[worker.conn] = worker
            for conn in wait(list(busy), timeout=1):
                worker = busy.pop(conn)
                seed, worker.seed = worker.seed, None
                try:
                    yield conn.recv()
                except EOFError:   # the worker died (an error outside the case's own handling): replaced
                    workers.remove(worker)
                    worker.stop()
                    yield seed, ("differ", "worker died", f"exit code {worker.process.exitcode}")
                    workers.append(_Worker(work))
            now = time.time()
            for conn, worker in list(busy.items()):
                if now - worker.since > timeout:
                    del busy[conn]
                    workers.remove(worker)
                    worker.stop()
                    yield worker.seed, timed_out(worker.seed, timeout)
                    workers.append(_Worker(work))
    finally:
        for worker in workers:
            worker.stop()
