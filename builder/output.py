"""The output folder: never half-written, never missing, one build at a time.

A build writes into a staging folder beside `out` (`.dist.new-…`), then swaps it in. On Linux the
swap is one `renameat2(RENAME_EXCHANGE)`: `out` is at every instant either the complete old site or the
complete new one, even if the process is killed. Elsewhere (or on a file system without exchange) it
is two renames, and a build killed between them leaves the old site in `.dist.old-PID`.

Builds into the same folder are serialised by a lock (`flock` on the folder that holds it), and the
build that holds the lock first clears what killed builds left: stale staging folders, and an old
site whose swap was interrupted (put back if `out` is missing).
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from builder.errors import Problem, UserError

WRITERS = 8  # threads creating output files
MARKER = ".lesson-builder"  # marks an output folder as ours, so a rebuild may replace it


class OutputLock:
    """An exclusive lock on building into `out`, held from staging to swap; a second build waits.
    It locks the folder that holds `out` (flock on the folder itself), so no lock file is left behind."""

    def __init__(self, out: Path):
        self.out = out
        self._fd = None

    def __enter__(self) -> "OutputLock":
        try:
            import fcntl
        except ImportError:  # not a POSIX system: no lock, as before
            return self
        try:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.out.parent, os.O_RDONLY)
        except OSError as err:
            raise UserError(Problem(self.out.parent, None, f"cannot write the output folder: {err.strerror}")) from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"{self.out}: another build is writing beside this folder; waiting for it", file=sys.stderr, flush=True)
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing releases the lock
            self._fd = None


def recover(out: Path) -> None:
    """Clear what killed builds left beside `out` (call with the lock held): put back an old site whose
    swap was interrupted if `out` is missing, then remove stale staging and old folders."""
    leftovers = sorted(out.parent.glob(f".{out.name}.old-*"), key=lambda p: p.stat().st_mtime, reverse=True)
    if not out.exists() and leftovers and (leftovers[0] / MARKER).exists():
        leftovers[0].rename(out)
        leftovers = leftovers[1:]
    for stale in [*leftovers, *out.parent.glob(f".{out.name}.new-*")]:
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2 with RENAME_EXCHANGE); False where that is unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):  # a C library without it
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):  # this file system cannot exchange
        return False
    raise OSError(code, os.strerror(code), str(b))


class Staging:
    """A fresh folder beside `out` that replaces `out` when the build succeeds, and is deleted when it
    fails, so `out` is never half-written. Pages may be written into it while the rest of the site is
    still rendering: creating a file costs about a millisecond of waiting on the file system, not of
    CPU, so threads create them while the workers render."""

    def __init__(self, out: Path):
        out = out.absolute()
        if out.exists() and not out.is_dir():
            raise UserError(Problem(out, None, "output path exists and is not a folder"))
        if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
            raise UserError(Problem(out, None, f"output folder is not empty and was not made by this builder "
                                               f"(no {MARKER} file); refusing to replace it"))
        self.out = out
        self.lock = OutputLock(out).__enter__()
        try:
            recover(out)
            self.folder = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
        except OSError as err:
            self.lock.__exit__()
            raise UserError(Problem(out.parent, None, f"cannot write the output folder: {err.strerror}")) from None
        self.written: set[str] = set()
        self._writers = ThreadPoolExecutor(WRITERS)
        self._pending = []

    def __enter__(self) -> "Staging":
        return self

    def __exit__(self, kind, error, trace) -> None:
        self._writers.shutdown(wait=True, cancel_futures=True)
        if self.folder.exists():  # not committed, or the old site swapped out: remove it
            shutil.rmtree(self.folder, ignore_errors=True)
        self.lock.__exit__()

    def write(self, files: dict[str, bytes]) -> None:
        """Start writing `files` (relative path → bytes); errors surface in `commit`."""
        for rel, data in files.items():
            self.written.add(rel)
            self._pending.append(self._writers.submit(self._write, self.folder / rel, data))

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    def commit(self, files: dict[str, bytes]) -> None:
        """Write what of `files` is not written yet, wait for every write, then swap the folder in."""
        self.write({rel: data for rel, data in files.items() if rel not in self.written})
        old = self.out.parent / f".{self.out.name}.old-{os.getpid()}"
        try:
            for pending in self._pending:
                pending.result()
            (self.folder / MARKER).write_text("Built by `python -m builder build`; safe to delete.\n", encoding="utf-8")
            self.folder.chmod(0o755)
            if not self.out.exists():
                self.folder.rename(self.out)
            elif not _exchange(self.folder, self.out):  # the staging folder now holds the old site
                self.out.rename(old)
                self.folder.rename(self.out)
                shutil.rmtree(old, ignore_errors=True)
        except OSError as err:
            if old.exists() and not self.out.exists():
                old.rename(self.out)
            raise UserError(Problem(self.out, None, f"cannot write the output folder: {err.strerror}")) from None


def write_atomically(out: Path, files: dict[str, bytes]) -> None:
    """Write `files` into a fresh folder beside `out`, then swap it in; on any failure `out` is untouched."""
    with Staging(out) as staging:
        staging.commit(files)
