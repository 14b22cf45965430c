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
import secrets
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
        # The name is known before the file exists, so that the cleanup below has it whenever Ctrl-C comes
        # (holding SIGINT back would not do: a thread of Arrow's may take it while this one makes the file).
        while True:
            temporary = os.path.join(directory, f".divaleval-{secrets.token_hex(6)}.partial")
            try:
                descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                break
            except FileExistsError:  # another's, however unlikely: not ours to remove
                temporary = None
        handle = os.fdopen(descriptor, "wb" if binary else "w", **text)
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
