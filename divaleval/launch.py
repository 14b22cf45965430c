"""The ``divaleval`` console script: the call goes to a running server, or is run in this process.

``divaleval server start`` (divaleval/server.py) leaves a process that has imported numpy, pyarrow and the
evaluator once; it forks a child for each call handed to it, and the child runs the call as this process
would: the same arguments, environment, working directory, umask and standard streams (their file
descriptors are passed over the server's Unix socket), so the output and the exit status are the same
bytes. A call of one run then costs Python's start-up and the run's own work, not numpy's and pyarrow's
imports again (docs/speed.md).

This module runs before anything else of the package: it imports only what Python's start-up and the
console script have loaded (plus ``_socket``, ``marshal`` and ``zlib``: not ``socket``, whose enums take 7 ms)
until it knows that no server takes the call, and then runs :func:`divaleval.cli.run_and_exit` here. A call
goes to a server only when

* ``DIVALEVAL_SERVER`` is not ``0`` (``1``: the call must go to a server, or fail with status 2);
* it evaluates (the default command, ``evaluate``, ``ndeval``, ``trec_eval``, ``gdeval``): the other
  commands run here, as before, because some of them load numpy with OpenBLAS's threads;
* a server was started by the same Python, for the same divaleval files, with the same values of the
  environment variables read when Python, numpy, pyarrow and their allocators load (:data:`KEYED_PREFIXES`):
  each such setting has a server of its own (:func:`server_key` names its socket);
* the socket's directory belongs to this user and to nobody else (mode 0700), and the server answers.
"""
from __future__ import annotations

import os
import sys

ENVIRONMENT = "DIVALEVAL_SERVER"  # 0: never; 1: always (else fail); unset or anything else: when one runs
PROTOCOL = 1
# Commands a server does not run (their module name in divaleval/cli/choices.py; tests/test_server.py holds
# this and SERVED equal to the group's commands): they are run in the calling process.
NOT_SERVED = frozenset({"axioms", "compare", "meta", "report", "server", "simulate-preferences", "topics-needed",
                        "validate"})
SERVED = frozenset({"evaluate", "ndeval", "trec_eval", "gdeval"})
# Environment variables read when Python, numpy, pyarrow or an allocator loads, which a server read once
# when it started: a call whose values differ goes to another server (or none).
KEYED_PREFIXES = ("PYTHON", "LC_", "LANG", "LD_", "MALLOC_", "GLIBC_", "MIMALLOC_", "JEMALLOC", "ARROW_",
                  "OPENBLAS_", "OMP_", "MKL_", "NUMPY", "NPY_")
# Message kinds, server to client: the call was forked (F), not taken (N, with the reason), ended (X, with
# the exit code; a negative code is the signal that ended it). Client to server: a signal to pass on (K).
FORKED, NOT_TAKEN, ENDED, SIGNAL = b"F", b"N", b"X", b"K"
NOT_SERVED_STATUS = 2
ANSWER_TIMEOUT = 30.0  # seconds a client waits for the server to take or decline the call
MAX_SOCKET_PATH = 100  # (sun_path holds 108 bytes on Linux)


def run() -> None:
    """The console script: the call given to a server where one takes it, else :func:`divaleval.cli.run_and_exit`."""
    mode = os.environ.get(ENVIRONMENT, "").strip()
    if mode != "0" and served(sys.argv[1:]):
        try:
            status = call_server(required=mode == "1")
        except KeyboardInterrupt:  # (before the call was handed over: as a call in place says it)
            from .cli.process import exit_interrupted

            exit_interrupted()
        if status is not None:
            _exit_as(status)
    from .cli import run_and_exit

    run_and_exit()


def served(args: list[str]) -> bool:
    """Whether a server may run a call with these arguments (an evaluating command; not shell completion)."""
    return (bool(args) and args[0] not in NOT_SERVED and os.name == "posix" and sys.platform.startswith("linux")
            and "_DIVALEVAL_COMPLETE" not in os.environ)


def server_key(environ: os._Environ | dict) -> str:
    """What a server must share with a call to take it: this Python and its flags, divaleval's files, the user,
    and the environment variables of :data:`KEYED_PREFIXES`."""
    parts = [str(PROTOCOL), sys.executable, sys.version, os.path.dirname(os.path.abspath(__file__)),
             repr(tuple(sys.flags)), repr(sys.warnoptions), repr(sorted(sys._xoptions.items())), str(os.getuid())]
    parts += sorted(f"{name}={value}" for name, value in environ.items() if name.startswith(KEYED_PREFIXES))
    return "\0".join(parts)


def server_directory(environ: os._Environ | dict) -> str:
    """Where servers' sockets are: ``$XDG_RUNTIME_DIR/divaleval``, else ``$TMPDIR/divaleval-UID`` (``/tmp``)."""
    runtime = environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "divaleval")
    return os.path.join(environ.get("TMPDIR") or "/tmp", f"divaleval-{os.getuid()}")


def socket_path(environ: os._Environ | dict) -> str:
    """The socket of the server for calls made with this environment (named by a checksum of its key)."""
    import zlib

    return os.path.join(server_directory(environ), f"server-{zlib.crc32(server_key(environ).encode()):08x}.sock")


def private_directory(path: str) -> bool:
    """Whether ``path`` is a directory (not a link) of this user's that nobody else may enter."""
    import stat

    try:
        status = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid() and not status.st_mode & 0o077


def call_server(required: bool) -> int | None:
    """Hand this call to a server: its exit status (a negative one is the signal that ended it), or None where
    no server takes it (where ``required``, status 2 after saying why)."""
    # The directory first: where it is missing, as for most calls, no key is made and zlib is not imported.
    reason = _unusable_directory(server_directory(os.environ))
    if reason is None:
        path = socket_path(os.environ)
        reason = _unusable_path(path)
    if reason is None:
        connection, reason = _connect(path)
        if connection is not None:
            try:
                return _handed_over(connection, path, required)
            finally:
                connection.close()
    if required:
        sys.stderr.write(f"divaleval: {ENVIRONMENT}=1, but no server takes this call: {reason} "
                         f"(start one: divaleval server start)\n")
        return NOT_SERVED_STATUS
    return None


def _unusable_directory(directory: str) -> str | None:
    if not private_directory(directory):
        if not os.path.lexists(directory):
            return f"none was started here ({directory} does not exist)"
        return f"{directory} is not a directory of this user's, closed to others"
    return None


def _unusable_path(path: str) -> str | None:
    if len(path) > MAX_SOCKET_PATH:
        return f"its socket's path would be longer than {MAX_SOCKET_PATH} characters ({path})"
    for descriptor in (0, 1, 2):
        try:
            os.fstat(descriptor)
        except OSError:
            return f"standard {('input', 'output', 'error')[descriptor]} is closed"
    return None


def _connect(path: str):
    import _socket

    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.connect(path)
    except OSError as error:
        connection.close()
        return None, f"no server answers at {path} ({error.strerror or error})"
    return connection, None


def _handed_over(connection, path: str, required: bool) -> int | None:
    """Send the call (arguments, environment, umask, streams' settings; the standard streams and the working
    directory as descriptors) and wait for its end, passing Ctrl-C and other ending signals on."""
    import _socket
    import marshal
    import signal

    umask = os.umask(0o022)
    os.umask(umask)
    streams = [None if stream is None else (stream.encoding, stream.errors, stream.line_buffering,
                                            getattr(stream, "write_through", False))
               for stream in (sys.stdin, sys.stdout, sys.stderr)]
    request = marshal.dumps((PROTOCOL, "call", server_key(os.environ), [os.fsencode(a) for a in sys.argv],
                             dict(os.environb), umask, streams))
    try:
        here = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    except OSError as error:  # (the call in place says what is wrong with it)
        return _not_served(required, f"the working directory cannot be opened ({error.strerror})")
    try:
        descriptors = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in (0, 1, 2, here))
        connection.sendmsg([len(request).to_bytes(8, "little")],
                           [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, descriptors)])  # (socket.send_fds's message)
        connection.sendall(request)
    except OSError as error:
        return _not_served(required, f"the server at {path} could not be given the call ({error})")
    finally:
        os.close(here)
    connection.settimeout(ANSWER_TIMEOUT)
    try:
        answer = connection.recv(1)
    except OSError:  # (a timeout too)
        answer = b""
    if answer == NOT_TAKEN:
        reason = read_rest(connection).decode(errors="replace")
        return _not_served(required, f"the server at {path} did not take it: {reason}")
    if answer != FORKED:
        connection.close()  # (so that a call forked after all ends: SIGHUP)
        sys.stderr.write(f"divaleval: the server at {path} did not answer (stop it: divaleval server stop; "
                         f"{ENVIRONMENT}=0 runs calls here)\n")
        return 1
    connection.settimeout(None)

    def pass_on(number: int, frame) -> None:
        try:
            connection.sendall(SIGNAL + bytes([number]))
        except OSError:
            pass

    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"):
        number = getattr(signal, name)
        if signal.getsignal(number) != signal.SIG_IGN:  # (one this process ignores, the call would ignore)
            signal.signal(number, pass_on)
    ending = read_exactly(connection, 5)
    if ending[:1] == ENDED and len(ending) == 5:
        return int.from_bytes(ending[1:], "little", signed=True)
    sys.stderr.write(f"divaleval: the server at {path} ended before the call did\n")
    return 1


def read_rest(connection) -> bytes:
    """What the peer sends until it closes the connection."""
    parts = []
    while True:
        part = connection.recv(4096)
        if not part:
            return b"".join(parts)
        parts.append(part)


def read_exactly(connection, size: int) -> bytes:
    """``size`` bytes from the connection, or fewer where the peer closed it first."""
    parts, left = [], size
    while left:
        part = connection.recv(left)
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _not_served(required: bool, reason: str) -> int | None:
    if required:
        sys.stderr.write(f"divaleval: {ENVIRONMENT}=1, but {reason}\n")
        return NOT_SERVED_STATUS
    return None


def _exit_as(status: int) -> None:
    """End as the served call ended: with its exit status, or by the signal that ended it."""
    if status < 0:
        import signal

        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
        status = 128 - status
    os._exit(status)
