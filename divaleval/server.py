"""A server for the evaluating commands: numpy, pyarrow and the evaluator imported once, a child forked per call.

``divaleval server start`` starts one (:func:`start`); the console script (divaleval/launch.py) hands it each
call of ``divaleval [evaluate|ndeval|trec_eval|gdeval] ...`` made with the same Python, divaleval and
settings. The server forks a child per call; the child takes the caller's standard streams and working
directory (passed as file descriptors over the socket), arguments, environment and umask, and runs
:func:`divaleval.cli.run_and_exit` as the caller would have run it, so the output, the messages and the exit
status are the same bytes. The server reports the child's end to the caller, which ends with it; the
caller passes Ctrl-C (and SIGTERM, SIGHUP, SIGQUIT) on to the child, and a caller that goes away ends its
child as a closed terminal ends a command (SIGHUP).

What a served call does not share with one run in place, by design: the server's resource limits, niceness
and control group (those it started with), and its process group (a served call is not in the caller's
job; job control such as Ctrl-Z stops only the caller).

A server stops after ``idle`` seconds without a call (``divaleval server start --idle``), on ``divaleval
server stop`` or SIGTERM, and by itself when divaleval's files change (an upgrade, an edit): it declines
the call that notices it, which then runs in place. Linux only (the server waits for its children through
``os.pidfd_open``); elsewhere every call runs in place.
"""
from __future__ import annotations

import errno
import gc
import importlib
import io
import marshal
import os
import pkgutil
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

from .launch import (
    ENDED, FORKED, MAX_SOCKET_PATH, NOT_TAKEN, PROTOCOL, SIGNAL, private_directory, read_exactly, read_rest,
    server_key, socket_path,
)

DEFAULT_IDLE = 600.0  # seconds without a call after which a server stops (0: never)
REQUEST_TIMEOUT = 5.0  # seconds a server waits for a connected caller's request
MAX_REQUEST = 1 << 24
START_TIMEOUT = 120.0  # seconds ``start`` waits for the new server to be ready
# Packages whose every module a server imports before its first call: what an evaluation imports as it goes
# (a measure's module when the measure is asked for), so that no served call imports them again.
WARM_PACKAGES = ("measures", "compat", "native", "io", "model", "ranking", "context", "engine", "results",
                 "aggregate", "labels", "evaluator", "placement", "output.formatting", "output.writers",
                 "output.atomic", "output.streams", "output.paths")


class ServerError(Exception):
    """A server could not be started, reached or stopped; the message says why."""


@dataclass(frozen=True)
class ServerStatus:
    """A running server, as it describes itself."""

    pid: int
    socket: str
    started: float  # time.time() when it was ready
    calls: int      # calls it has forked
    running: int    # of them, those not ended yet
    idle: float     # seconds without a call before it stops (0: never)


def supported() -> bool:
    """Whether servers can run here (Linux: ``os.pidfd_open``; POSIX file descriptor passing)."""
    return sys.platform.startswith("linux") and hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")


# -- control: start, stop, status (the ``divaleval server`` commands) --------------------------------------

def status() -> ServerStatus | None:
    """The server that takes this environment's calls, or None where none answers."""
    try:
        answer = _control("status")
    except ServerError:
        return None
    return ServerStatus(**marshal.loads(answer))


def start(idle: float = DEFAULT_IDLE) -> ServerStatus:
    """Start a server for this Python, divaleval and environment, and return it once it is ready.

    Raises :class:`ServerError` where one already answers (its pid in the message), where servers cannot run
    here, or where the new one fails before it is ready (what it wrote to its log is in the message)."""
    if not supported():
        raise ServerError("a server needs Linux (os.pidfd_open); calls run in their own process here")
    running = status()
    if running is not None:
        raise ServerError(f"a server is already running (pid {running.pid}, {running.socket})")
    path = socket_path(os.environ)
    _private_directory(os.path.dirname(path))
    if len(path) > MAX_SOCKET_PATH:
        raise ServerError(f"the socket's path would be longer than {MAX_SOCKET_PATH} characters: {path} "
                          "(set XDG_RUNTIME_DIR or TMPDIR to a shorter directory)")
    log = _log_path(path)
    readable, writable = os.pipe()
    command = [sys.executable, *subprocess._args_from_interpreter_flags(), "-c",
               "from divaleval.server import serve_from_command_line; serve_from_command_line()",
               repr(float(idle)), str(writable)]
    with open(log, "wb") as log_file:
        try:
            # In its own session (no terminal's signals reach it), in / (it holds no directory of the user's;
            # and no divaleval folder there shadows the installed one).
            subprocess.Popen(command, pass_fds=[writable], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=log_file, cwd="/", start_new_session=True)
        finally:
            os.close(writable)
    answer = _read_until_closed(readable, START_TIMEOUT)
    if not answer.startswith(b"ready "):
        told = Path(log).read_text(errors="replace").strip()[-2000:] or "(nothing in its log)"
        raise ServerError(f"the server did not start:\n{answer.decode(errors='replace')}{told}")
    started = status()
    if started is None:
        raise ServerError(f"the server started but does not answer at {path}")
    return started


def stop(wait: float = 30.0) -> ServerStatus | None:
    """Stop the server of this environment (it ends once its calls have): the one stopped, or None where none
    was running. Raises :class:`ServerError` where it is still answering after ``wait`` seconds."""
    stopped = status()
    if stopped is None:
        return None
    try:
        _control("stop")
    except ServerError:
        return stopped  # (it ended in between)
    deadline = time.monotonic() + wait
    while _alive(stopped.pid):
        if time.monotonic() > deadline:
            raise ServerError(f"the server (pid {stopped.pid}) has not ended after {wait:g} s: calls still running")
        time.sleep(0.02)
    return stopped


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _control(kind: str) -> bytes:
    path = socket_path(os.environ)
    if not private_directory(os.path.dirname(path)):
        raise ServerError("no server")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(REQUEST_TIMEOUT)
        try:
            connection.connect(path)
            request = marshal.dumps((PROTOCOL, kind, server_key(os.environ)))
            connection.sendall(len(request).to_bytes(8, "little") + request)
            answer = read_rest(connection)
        except OSError as error:
            raise ServerError(f"no server answers at {path} ({error})") from None
    if answer[:1] == NOT_TAKEN:
        raise ServerError(answer[1:].decode(errors="replace"))
    return answer


def _private_directory(directory: str) -> None:
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError as error:
        raise ServerError(f"cannot make {directory}: {error.strerror}") from None
    if not private_directory(directory):
        raise ServerError(f"{directory} must be a directory of this user's that nobody else may enter "
                          "(mode 0700, not a link)")


def _log_path(socket_file: str) -> str:
    return socket_file.removesuffix(".sock") + ".log"


def _remove_if_empty(path: str) -> None:
    try:
        if os.stat(path).st_size == 0:
            os.unlink(path)
    except OSError:
        pass


def _read_until_closed(descriptor: int, timeout: float) -> bytes:
    deadline = time.monotonic() + timeout
    parts = []
    with selectors.DefaultSelector() as selector:
        selector.register(descriptor, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                break
            part = os.read(descriptor, 4096)
            if not part:
                break
            parts.append(part)
    os.close(descriptor)
    return b"".join(parts)


def _receive_exactly(connection: socket.socket, size: int) -> bytes:
    received = read_exactly(connection, size)
    if len(received) < size:
        raise ConnectionError("the caller closed the connection before its request was whole")
    return received


# -- the server process -------------------------------------------------------------------------------------

def serve_from_command_line() -> None:
    """The server process's entry (``start`` runs it): ``IDLE READY_FD``."""
    idle, ready = float(sys.argv[1]), int(sys.argv[2])
    sys.argv = [sys.argv[0]]
    serve(idle, ready)


def warm_up() -> None:
    """Import what the served commands import, and ask the compiled kernels' probes, before the first fork."""
    from .cli.process import without_blas_threads

    without_blas_threads()  # (as the served commands do, before numpy loads)
    from .cli import evaluate, evaluation, gdeval, ndeval, progress, scaleout, trec_eval  # noqa: F401
    from . import api  # noqa: F401

    for name in WARM_PACKAGES:
        module = importlib.import_module(f"{__package__}.{name}")
        for found in pkgutil.walk_packages(getattr(module, "__path__", []), prefix=f"{module.__name__}."):
            importlib.import_module(found.name)
    import glob  # noqa: F401  (a run folder's listing)

    import pyarrow.compute  # noqa: F401  (qrels reading)

    from .native import probe_all

    probe_all()


class _Server:
    def __init__(self, idle: float, key: str, path: str, code: tuple) -> None:
        self.idle = idle
        self.key, self.path = key, path  # (of the environment before warm_up set what the commands set)
        self.code = code  # (taken before the imports: a file changed while they ran is seen at the first call)
        self.children: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (pid, the caller's connection)
        self.calls = 0
        self.stopping = False
        self.last_call = time.monotonic()
        self.started = time.time()
        self.selector = selectors.DefaultSelector()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.wake_read, self.wake_write = socket.socketpair()
        self.own_socket: tuple[int, int] | None = None

    def bind(self) -> None:
        try:
            self.listener.bind(self.path)
        except OSError as error:
            if error.errno != errno.EADDRINUSE:
                raise ServerError(f"cannot listen at {self.path}: {error.strerror}") from None
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(self.path)
            except ConnectionRefusedError:  # a server that was killed left its socket behind
                os.unlink(self.path)
                self.listener.bind(self.path)
            else:
                raise ServerError(f"a server is already running at {self.path}") from None
            finally:
                probe.close()
        status = os.stat(self.path)
        self.own_socket = (status.st_dev, status.st_ino)
        self.listener.listen(64)

    def close_listener(self) -> None:
        if self.own_socket is None:
            return
        try:
            status = os.stat(self.path)
            if (status.st_dev, status.st_ino) == self.own_socket:  # (not a newer server's)
                os.unlink(self.path)
        except OSError:
            pass
        self.selector.unregister(self.listener)
        self.listener.close()
        self.own_socket = None

    def run(self, ready: int | None) -> None:
        self.bind()
        self.selector.register(self.listener, selectors.EVENT_READ, "listener")
        self.wake_read.setblocking(False)
        self.wake_write.setblocking(False)
        self.selector.register(self.wake_read, selectors.EVENT_READ, "wake")
        signal.set_wakeup_fd(self.wake_write.fileno())
        for name in ("SIGTERM", "SIGINT"):
            signal.signal(getattr(signal, name), self._stop_signal)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        gc.collect()
        gc.freeze()  # (the children share these objects' pages: no collection in a child writes to them)
        if ready is not None:
            os.write(ready, f"ready {os.getpid()}\n".encode())
            os.close(ready)
        try:
            while not (self.stopping and not self.children):
                timeout = None
                if not self.children and self.idle > 0 and not self.stopping:
                    timeout = self.last_call + self.idle - time.monotonic()
                    if timeout <= 0:
                        break
                for key, _ in self.selector.select(timeout):
                    if key.data == "listener":
                        self.accept()
                    elif key.data == "wake":
                        self.wake_read.recv(4096)
                    else:
                        self.reap(key.fd)
                if self.stopping:
                    self.close_listener()
        finally:
            self.close_listener()

    def _stop_signal(self, number: int, frame) -> None:
        self.stopping = True

    def accept(self) -> None:
        try:
            connection, _ = self.listener.accept()
        except OSError:
            return
        try:
            self.answer(connection)
        except Exception:  # (a caller that misbehaves; the server goes on)
            traceback.print_exc()
            connection.close()

    def answer(self, connection: socket.socket) -> None:
        connection.settimeout(REQUEST_TIMEOUT)
        pid, uid, gid = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                                   struct.calcsize("3i")))
        if uid != os.getuid():
            connection.close()
            return
        header, descriptors, _, _ = socket.recv_fds(connection, 8, 8)
        try:
            if len(header) < 8:
                header += _receive_exactly(connection, 8 - len(header))
            size = int.from_bytes(header, "little")
            if size > MAX_REQUEST:
                raise ValueError(f"a request of {size} bytes")
            request = marshal.loads(_receive_exactly(connection, size))
            version, kind, key = request[:3]
            if version != PROTOCOL or key != self.key:
                return self.decline(connection, "its Python, divaleval or settings are not the server's")
            if kind == "status":
                connection.sendall(marshal.dumps(dict(
                    pid=os.getpid(), socket=self.path, started=self.started, calls=self.calls,
                    running=len(self.children), idle=self.idle)))
                connection.close()
            elif kind == "stop":
                self.stopping = True
                connection.sendall(b"stopping")
                connection.close()
            elif kind == "call" and len(descriptors) == 4:
                if self.stopping:
                    return self.decline(connection, "the server is stopping")
                if code_state() != self.code:
                    self.stopping = True
                    return self.decline(connection, "divaleval's or pyarrow's files changed since the server started; "
                                                    "it stops")
                self.fork(connection, descriptors, request[3:])
            else:
                self.decline(connection, "not a request the server knows")
        finally:  # (the server's copies: a forked call has its own)
            for descriptor in descriptors:
                os.close(descriptor)

    def decline(self, connection: socket.socket, reason: str) -> None:
        try:
            connection.sendall(NOT_TAKEN + reason.encode())
        finally:
            connection.close()

    def fork(self, connection: socket.socket, descriptors: list[int], call: tuple) -> None:
        with warnings.catch_warnings():  # (Python 3.12 warns of forking beside a thread: Arrow's allocator's
            warnings.simplefilter("ignore", DeprecationWarning)  # background thread, which fork handles)
            pid = os.fork()
        if pid == 0:
            try:
                self.become_the_call(connection, descriptors, call)
            except BaseException as error:  # (run_and_exit ends the process itself: the call could not be set up)
                os.write(2, f"divaleval: the server could not run the call ({error!r}); "
                            "DIVALEVAL_SERVER=0 runs it in place\n".encode())
            finally:
                os._exit(70)
        self.calls += 1
        self.last_call = time.monotonic()
        pidfd = os.pidfd_open(pid)
        self.children[pidfd] = (pid, connection)
        self.selector.register(pidfd, selectors.EVENT_READ, "child")
        try:
            connection.sendall(FORKED)
        except OSError:
            pass  # (the caller went away: its child is ended by its watcher)

    def reap(self, pidfd: int) -> None:
        pid, connection = self.children.pop(pidfd)
        self.selector.unregister(pidfd)
        os.close(pidfd)
        _, wait_status = os.waitpid(pid, 0)
        try:
            connection.sendall(ENDED + os.waitstatus_to_exitcode(wait_status).to_bytes(4, "little", signed=True))
        except OSError:
            pass
        connection.close()
        self.last_call = time.monotonic()

    def become_the_call(self, connection: socket.socket, descriptors: list[int], call: tuple) -> None:
        """In the child: drop the server's descriptors and signal handling, take the caller's, run the call."""
        argv, environment, umask, streams = call
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for name in ("SIGTERM", "SIGHUP", "SIGCHLD"):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
        for pidfd, (_, other) in self.children.items():
            os.close(pidfd)
            other.close()
        self.selector.close()
        self.listener.close()
        self.wake_read.close()
        self.wake_write.close()
        for target, descriptor in zip((0, 1, 2), descriptors[:3]):
            os.dup2(descriptor, target)
        os.fchdir(descriptors[3])
        for descriptor in descriptors:
            if descriptor > 2:
                os.close(descriptor)
        os.umask(umask)
        os.environb.clear()
        os.environb.update(environment)
        sys.argv = [os.fsdecode(argument) for argument in argv]
        # Top-level imports a call makes as it goes find what they would in place: the script's folder first.
        sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
        _standard_streams(streams)
        connection.settimeout(None)
        threading.Thread(target=_watch_the_caller, args=(connection,), daemon=True,
                         name="divaleval-caller").start()
        from .cli import run_and_exit

        try:
            run_and_exit()
        except SystemExit as leaving:  # (run_and_exit's fallbacks to Python's own shutdown)
            code = leaving.code
            if not isinstance(code, int):
                if code is not None:
                    print(code, file=sys.stderr)
                code = 0 if code is None else 1
            _flush()
            os._exit(code)
        except BaseException:
            sys.excepthook(*sys.exc_info())
            _flush()
            os._exit(1)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass


def _standard_streams(settings: list) -> None:
    """sys.stdin, sys.stdout and sys.stderr as Python makes them at start-up, on the caller's descriptors and
    with the caller's encoding, errors and buffering."""
    for descriptor, name, setting in zip((0, 1, 2), ("stdin", "stdout", "stderr"), settings):
        if setting is None:
            stream = None
        else:
            encoding, errors, line_buffering, write_through = setting
            reading = descriptor == 0
            raw = io.FileIO(descriptor, "r" if reading else "w", closefd=False)
            raw.name = f"<{name}>"
            buffered = raw if write_through and not reading else \
                (io.BufferedReader(raw) if reading else io.BufferedWriter(raw))
            stream = io.TextIOWrapper(buffered, encoding=encoding, errors=errors, newline="\n",
                                      line_buffering=line_buffering, write_through=write_through)
            stream.mode = "r" if reading else "w"
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _watch_the_caller(connection: socket.socket) -> None:
    """In a served call: raise the signals the caller passes on; end as a command whose terminal closed
    (SIGHUP) when the caller goes away."""
    pending = b""
    while True:
        try:
            received = connection.recv(64)
        except OSError:
            received = b""
        if not received:
            os.kill(os.getpid(), signal.SIGHUP)
            return
        pending += received
        while len(pending) >= 2:
            kind, number, pending = pending[:1], pending[1], pending[2:]
            if kind == SIGNAL:
                os.kill(os.getpid(), number)


def code_state() -> tuple:
    """The divaleval files a server loaded (and could load), and pyarrow's compiled ones, as the qrels cache's code
    key sees them."""
    from .model.stored import arrow_build_files, source_files

    return tuple(source_files()) + tuple(arrow_build_files())


def serve(idle: float = DEFAULT_IDLE, ready: int | None = None) -> None:
    """Be a server until stopped (or ``idle`` seconds pass without a call); ``ready``: a descriptor to write
    ``ready PID`` to, and close, once calls can be taken."""
    if not supported():
        raise ServerError("a server needs Linux (os.pidfd_open)")
    if sys.path and sys.path[0] in ("", os.getcwd()):
        sys.path[0] = os.path.dirname(sys.executable)  # (as the console script's: its folder, not here)
    key, path, code = server_key(os.environ), socket_path(os.environ), code_state()
    warm_up()
    server = _Server(idle, key, path, code)
    try:
        server.run(ready)
        _remove_if_empty(_log_path(path))  # (a log is kept only where the server had something to say)
    except ServerError as error:
        if ready is not None:
            try:
                os.write(ready, f"{error}\n".encode())
            except OSError:
                pass
        raise SystemExit(f"divaleval server: {error}") from None
