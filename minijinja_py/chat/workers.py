"""Worker processes for batch: items → function(context, item) computed in N processes, results in input order."""

# Each worker has its own pipe and is sent one item at a time, only when it is idle (waiting to receive), so a
# large item and a large result never wait on each other (multiprocessing.Pool's terminate() can deadlock on a
# worker blocked writing a large result). Workers ignore SIGINT and SIGHUP: Ctrl-C and a closed terminal's hangup
# (sent to the whole foreground process group) are the parent's, which stops every worker and reaps it before it
# goes on, also when it comes while the workers start or stop. A worker holds no parent's end of a pipe, so it
# sees the end of its input and leaves when the parent dies without stopping it (kill -9). At most
# `workers * WINDOW` items are in flight or waiting to be handed back in order, so memory does not follow the
# input's length.

import multiprocessing
import signal
import threading
from multiprocessing.connection import wait
from typing import Any, Callable, Iterator

__all__ = ["WorkerFailed", "ordered_results", "StopSignalsHeld"]

WINDOW = 3  # items a worker may be ahead of the oldest result not yet handed back
_JOIN_SECONDS = 2.0


class WorkerFailed(Exception):
    """A worker process died, or its function raised: the message says which and how."""


def _worker_main(connection: Any, function: Callable[[Any, Any], Any], context: Any,
                 parent_ends: "tuple[Any, ...]") -> None:
    # Started with the stop signals blocked (StopSignalsHeld): their handling is set before they can come.
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    if _HANGUP is not None:
        signal.signal(_HANGUP, signal.SIG_IGN)  # so is a closed terminal's hangup
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent stops a worker with SIGTERM, whatever it does itself
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    for end in parent_ends:  # inherited by the fork: held here, they would hide the parent's death from recv()
        end.close()
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        number, item = message
        try:
            connection.send((number, True, function(context, item)))
        except Exception as exc:  # noqa: BLE001 - handed to the parent as a WorkerFailed, never a traceback
            connection.send((number, False, f"{type(exc).__name__}: {exc}"))


_HANGUP = getattr(signal, "SIGHUP", None)   # (not on Windows)
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM} | ({_HANGUP} if _HANGUP is not None else set())


class StopSignalsHeld:
    # SIGINT, SIGTERM and SIGHUP blocked while workers start or stop, so that a stop signal never lands between a
    # fork and the pool's record of the process, nor cuts a stop short (a worker nobody stops): a process forked
    # meanwhile starts with them blocked and sets its own handling first; the parent gets one that came meanwhile as
    # it leaves (its handler raises then: KeyboardInterrupt, or the CLI's SIGTERM/SIGHUP exception). Where signals
    # cannot be blocked (Windows), SIGINT is held by a handler instead, on the main thread only. (The CLI holds them
    # too while it makes its output's temporary file and records it.)

    def __enter__(self) -> "StopSignalsHeld":
        self.came = False
        self.previous: Any = None
        self.mask: Any = None
        if hasattr(signal, "pthread_sigmask"):
            self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        elif threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._hold)
        return self

    def _hold(self, signum: int, frame: Any) -> None:
        self.came = True

    def __exit__(self, *exc: Any) -> None:
        if self.mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)  # a pending signal's handler runs here
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
        if self.came and exc[0] is None:
            raise KeyboardInterrupt


class _Pool:
    # The worker processes and the parent's ends of their pipes: none until start(), so that a pool is made
    # before the `try` that stops it (a signal between the two then leaves no worker behind).

    def __init__(self) -> None:
        self.processes: "list[Any]" = []
        self.connections: "list[Any]" = []

    def start(self, function: Callable[[Any, Any], Any], context: Any, workers: int) -> None:
        # A signal that came meanwhile is raised as the signals are let through, once every started worker is
        # recorded (stop() then stops them).
        with StopSignalsHeld():
            for _ in range(workers):
                self._start(function, context)

    def _start(self, function: Callable[[Any, Any], Any], context: Any) -> None:
        made = multiprocessing.get_context()
        parent, child = made.Pipe()
        process = made.Process(target=_worker_main, daemon=True,
                               args=(child, function, context, (*self.connections, parent)))
        try:
            process.start()
        except BaseException:
            parent.close()
            raise
        finally:
            child.close()
        self.processes.append(process)
        self.connections.append(parent)

    def stop(self, finished: bool) -> None:
        # Finished: each worker told to end; otherwise terminated. Every worker is reaped with the stop signals
        # held, so that a signal meanwhile (a second Ctrl-C or SIGTERM, or the first as a finished batch stops)
        # cannot cut the reaping short: its handler runs once every worker is gone.
        with StopSignalsHeld():
            for connection, process in zip(self.connections, self.processes):
                if finished:
                    try:
                        connection.send(None)
                    except OSError:
                        pass
                elif process.is_alive():
                    process.terminate()
            for connection, process in zip(self.connections, self.processes):
                process.join(_JOIN_SECONDS)
                if process.is_alive():
                    process.kill()
                    process.join()
                connection.close()
            self.processes, self.connections = [], []  # stopped: a second stop() has nothing to do


def ordered_results(function: Callable[[Any, Any], Any], context: Any, items: "Iterator[tuple[Any, Any]]",
                    workers: int) -> "Iterator[tuple[Any, Any]]":
    # (function(context, item), tag) for each (item, tag) of `items`, in order, computed by `workers`
    # processes (the tag stays in the parent). `function` must be a module-level function and `context` must
    # pickle (they travel to each worker once). Raises WorkerFailed when a worker dies or its function raises.
    pool = _Pool()
    finished = False
    try:
        try:
            pool.start(function, context, workers)
            yield from _schedule(pool, items, workers)
            finished = True
        finally:
            pool.stop(finished)
    finally:  # a signal that cut that stop short before it held the signals: the workers are stopped here
        pool.stop(False)


def _schedule(pool: _Pool, items: "Iterator[tuple[Any, Any]]", workers: int) -> "Iterator[tuple[Any, Any]]":
    idle = list(range(workers))
    busy: "dict[int, int]" = {}        # worker -> number of the item it holds
    tags: "dict[int, Any]" = {}        # number -> tag, for items sent and not handed back
    done: "dict[int, Any]" = {}        # number -> result, waiting for the ones before it
    sent = handed = 0
    exhausted = False
    while True:
        while idle and not exhausted and sent < handed + workers * WINDOW:
            try:
                item, tag = next(items)
            except StopIteration:
                exhausted = True
                break
            worker = idle.pop()
            _send(pool, worker, (sent, item))
            busy[worker], tags[sent] = sent, tag
            sent += 1
        while handed in done:
            yield done.pop(handed), tags.pop(handed)
            handed += 1
        if not busy:  # everything sent was handed back: the end if nothing is left to send; else the window
            if exhausted:  # was full (an oldest item held it), and it is empty now
                return
            continue
        for connection in wait([pool.connections[w] for w in busy]):
            worker = pool.connections.index(connection)
            number, ok, result = _receive(pool, worker)
            if not ok:
                raise WorkerFailed(f"a batch worker failed: {result}")
            del busy[worker]
            idle.append(worker)
            done[number] = result


def _send(pool: _Pool, worker: int, message: Any) -> None:
    try:
        pool.connections[worker].send(message)
    except OSError:  # a broken pipe here is a dead worker, not a reader gone from stdout
        raise _died(pool, worker) from None


def _receive(pool: _Pool, worker: int) -> "tuple[int, bool, Any]":
    try:
        message: "tuple[int, bool, Any]" = pool.connections[worker].recv()
    except (EOFError, OSError):
        raise _died(pool, worker) from None
    return message


def _died(pool: _Pool, worker: int) -> WorkerFailed:
    process = pool.processes[worker]
    process.join(_JOIN_SECONDS)
    return WorkerFailed(f"a batch worker process died (exit status {process.exitcode})")
