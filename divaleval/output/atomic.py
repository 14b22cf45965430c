"""Files the commands write (``-o``, ``--fix``, plots): whole or not at all.

A file is written under a temporary name beside its target and renamed into
place only once complete, so that an error, a full disk or Ctrl-C part way
leaves no file that looks like a finished one (the temporary is removed), and a
reader of the target never sees it half written. The rename stays on one file
system, as it is in the target's directory.
"""
from __future__ import annotations

import contextlib
import os
import signal
import tempfile
from typing import IO, Iterator


@contextlib.contextmanager
def atomic_output(path: str, *, binary: bool = False, replace: bool = True) -> Iterator[IO]:
    """A handle on a temporary file beside ``path``, which becomes ``path`` when the block ends normally.

    Text is UTF-8, with ids' undecodable bytes written back as they were read
    (surrogateescape). ``replace=False``: never replace an existing ``path``
    (FileExistsError, the temporary removed).
    """
    directory = os.path.dirname(os.path.abspath(path))
    text = {} if binary else {"encoding": "utf-8", "errors": "surrogateescape"}
    temporary = None
    try:
        # Ctrl-C is held back until the temporary's name is known, so that the cleanup below always has it.
        with _interrupts_held():
            handle = tempfile.NamedTemporaryFile("wb" if binary else "w", dir=directory, prefix=".divaleval-",
                                                 suffix=".partial", delete=False, **text)
            temporary = handle.name
        with handle:
            yield handle
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # as an ordinary new file (the temporary one is private)
        if replace:
            os.replace(temporary, path)
        else:
            _link_new(temporary, path)
    except BaseException:  # Ctrl-C too: nothing is left behind
        if temporary is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        raise


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT held back for the block (delivered when it ends), where the platform can (not on Windows)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _link_new(temporary: str, path: str) -> None:
    """Give ``temporary`` the name ``path`` unless a file has it (a hard link fails then, atomically)."""
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: checked, then renamed
        if os.path.lexists(path):
            raise FileExistsError(path) from None
        os.replace(temporary, path)
        return
    os.unlink(temporary)
