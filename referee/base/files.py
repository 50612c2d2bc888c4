"""Files that hold a secret, and files a user hands over: the two ways referee opens them.

A file holding a credential, the campaign secret or a row players may not see (the
store, its journal, a backup, ``praw.ini``) is made readable by its owner alone
(0600) from the moment it exists: :func:`write_private` creates one, never through a
link planted where it goes; :func:`open_private` opens one to keep writing it and
tightens a wider mode left by an older version or a copy (we own the file, so nobody
loses anything they should have had), or warns when the file is not ours to change.

A file a command reads because a user named it (a sheet to import, a saved thread, a
config) may be anything: :func:`read_bounded` takes only a regular file, never a
device or a FIFO that would hang the command, and at most a stated number of bytes.

>>> import tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as tmp:
...     write_private(Path(tmp) / "secret.txt", b"s3cret\\n")
...     oct((Path(tmp) / "secret.txt").stat().st_mode & 0o777)
...     read_bounded(Path(tmp) / "secret.txt", 100, "The secret file")
'0o600'
b's3cret\\n'
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
from pathlib import Path

from referee.base.errors import ConfigError

__all__ = [
    "PRIVATE_FOLDER_MODE",
    "PRIVATE_MODE",
    "copy_private",
    "make_private",
    "open_private",
    "open_regular",
    "read_bounded",
    "read_text_bounded",
    "write_new",
    "write_private",
]

log = logging.getLogger(__name__)

PRIVATE_MODE = 0o600  # read and written by its owner alone
PRIVATE_FOLDER_MODE = 0o700
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # opening a FIFO to read must not wait for a writer


def write_private(path: Path, data: bytes) -> None:
    """Create ``path`` with mode 0600 and write ``data``; never an existing file or a link."""
    write_new(path, data, PRIVATE_MODE)


def write_new(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Create ``path`` with ``mode`` (less the umask) and write ``data``.

    ``O_EXCL | O_NOFOLLOW``: a file, or a symlink planted where ``path`` goes, is an
    error (:class:`FileExistsError`), never written through.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def open_private(path: Path, flags: int) -> int:
    """``os.open(path, flags)`` for a file holding a secret: created 0600, and an
    existing one with a wider mode tightened (see :func:`make_private`)."""
    fd = os.open(path, flags, PRIVATE_MODE)
    try:
        make_private(fd, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_private(fd: int, path: Path) -> None:
    """Take group and other permissions off the open file ``fd`` if we own it (logged);
    warn, and leave it, if another user owns it (only they or root may change it)."""
    info = os.fstat(fd)
    mode = stat.S_IMODE(info.st_mode)
    if not stat.S_ISREG(info.st_mode) or not mode & 0o077:
        return
    if info.st_uid == os.geteuid():
        os.fchmod(fd, mode & 0o700)
        log.warning(
            "event=file_mode_tightened file=%s from=%o to=%o: it holds a secret or private "
            "rows, so only its owner may read it",
            path,
            mode,
            mode & 0o700,
        )
    else:
        log.warning(
            "event=file_mode_too_wide file=%s mode=%o owner=%d: it holds a secret or private "
            "rows and others may read it; run `chmod 600 %s` as its owner",
            path,
            mode,
            info.st_uid,
            path,
        )


def open_regular(path: Path, what: str) -> int:
    """A file descriptor reading ``path``, which must be a regular file (links followed).

    Raises :class:`ConfigError` for a device, a FIFO, a socket or a folder, and lets
    :class:`OSError` (a missing file, no permission) through for the caller to word.
    """
    fd = os.open(path, os.O_RDONLY | _NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _kind(info.st_mode)
            raise ConfigError(
                f"{what} {path} is {kind}, not a regular file; give the path of a file."
            )
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(path: Path, cap: int, what: str) -> bytes:
    """The bytes of the regular file ``path``, at most ``cap`` of them.

    Raises :class:`ConfigError` naming the cap for a larger file, or for one that is
    not a regular file (:func:`open_regular`); :class:`OSError` for the caller to word.

    >>> read_bounded(Path("/dev/zero"), 10, "The sheet")
    Traceback (most recent call last):
    ...
    referee.base.errors.ConfigError: The sheet /dev/zero is a device, not a regular file; \
give the path of a file.
    """
    fd = open_regular(path, what)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(cap + 1)
    if len(data) > cap:
        raise ConfigError(
            f"{what} {path} is larger than {cap:,} bytes, the most referee reads from it; "
            "check that it is the right file, or make it smaller."
        )
    return data


def read_text_bounded(path: Path, cap: int, what: str) -> str:
    """:func:`read_bounded`, decoded as UTF-8 (:class:`UnicodeDecodeError` if it is not)."""
    return read_bounded(path, cap, what).decode("utf-8")


def copy_private(source: Path, target: Path) -> None:
    """Copy ``source`` to the new file ``target``, made 0600 (whatever ``source``'s mode)
    and with ``source``'s times."""
    with open(source, "rb") as reading:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, PRIVATE_MODE)
        with os.fdopen(fd, "wb") as writing:
            shutil.copyfileobj(reading, writing)
        info = os.fstat(reading.fileno())
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"
