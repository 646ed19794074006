"""The worker pool of the campaign tools (tools/differential_campaign.py, tools/chat_campaign.py): case seeds in,
(seed, outcome) out in completion order, each case in a worker process with a memory limit and a time limit.

A worker runs `work(seed)` for each seed it is given; a case that takes longer than `timeout` seconds has its
worker killed and replaced, and its outcome is `timed_out(seed, timeout)`. Workers are forked, so `work` may be
any function (a closure over data loaded before the pool starts).
"""

import json
import multiprocessing
import os
import time
import warnings
from multiprocessing.connection import wait

__all__ = ["outcomes", "MEMORY_LIMIT", "add_case_options", "case_seeds"]

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


def add_case_options(ap, replay_help="re-run the cases saved by --json"):
    """The options both campaign tools take: how many cases from which seed, one case, a replay, the report."""
    ap.add_argument("-n", type=int, default=20000, help="number of cases")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--examples", type=int, default=2, help="examples shown per category")
    ap.add_argument("--json", help="write every differing case to this file")
    ap.add_argument("--show-known", default="", help="comma-separated known categories to show examples of too")
    ap.add_argument("--case", type=int, help="run the single case with this seed and show it")
    ap.add_argument("--replay", help=replay_help)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--timeout", type=float, default=20, help="seconds per case")


def case_seeds(args):
    """The seeds of the cases to run: those saved in --replay's file, or -n from --seed (each case's own seed is
    seed * 10**7 + its index, so one case re-generates alone)."""
    if args.replay:
        with open(args.replay, encoding="utf-8") as f:
            return [d["seed"] for d in json.load(f)]
    return [args.seed * 10 ** 7 + i for i in range(args.n)]
