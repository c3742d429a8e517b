"""The output folder: never half-written, never missing, one build at a time.

A build writes into a staging folder beside `out` (`.dist.new-…`), then swaps it in. On Linux the
swap is one `renameat2(RENAME_EXCHANGE)`: `out` is at every instant either the complete old site or the
complete new one, even if the process is killed. Elsewhere (or on a file system without exchange) it
is two renames, and a build killed between them leaves the old site in `.dist.old-PID`.

Builds into the same folder are serialised by a lock (`flock` on the folder that holds it), and the
build that holds the lock first clears what killed builds left: stale staging folders, and an old
site whose swap was interrupted (put back if `out` is missing). Only folders that carry the builder's
marker file are ever removed. When `out` is a symbolic link, the folder it names is replaced and the
link is kept.
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


def leftovers(out: Path, kind: str) -> list[Path]:
    """The folders a killed build left beside `out`: `.NAME.old-PID` (an old site) or `.NAME.new-XXXX`
    (a staging folder). Names are compared as text, never as a pattern (`--out 'd/*'` once matched any
    dotted folder in d/), and only folders holding the builder's marker are ours."""
    prefix = f".{out.name}.{kind}-"
    try:
        names = os.listdir(out.parent)
    except OSError:
        return []
    found = []
    for name in names:
        path = out.parent / name
        if name.startswith(prefix) and path.is_dir() and not path.is_symlink() and (path / MARKER).is_file():
            found.append(path)
    return found


def recover(out: Path) -> None:
    """Clear what killed builds left beside `out` (call with the lock held): put back an old site whose
    swap was interrupted if `out` is missing, then remove stale staging and old folders, ours only."""
    olds = sorted(leftovers(out, "old"), key=lambda p: p.stat().st_mtime, reverse=True)
    if not out.exists() and not out.is_symlink() and olds:
        olds[0].rename(out)
        olds = olds[1:]
    for stale in [*olds, *leftovers(out, "new")]:
        shutil.rmtree(stale, ignore_errors=True)
    try:  # a build killed between creating its staging folder and marking it left it empty
        names = os.listdir(out.parent)
    except OSError:
        return
    for name in names:
        if name.startswith(f".{out.name}.new-"):
            try:
                os.rmdir(out.parent / name)  # only ever removes an empty folder
            except OSError:
                pass


def resolve_output(out: Path) -> Path:
    """The folder a build replaces. A symbolic link is followed (the link stays, its target gets the
    new site), so that the link and the folder it names never part."""
    out = out.absolute()
    if out.is_symlink():
        target = Path(os.path.realpath(out))
        if not target.is_dir():
            raise UserError(Problem(out, None, f"is a symbolic link to {target}, which is not a folder; "
                                               "make the folder, or remove the link"))
        return target
    return out


def check_ours(out: Path) -> None:
    """Refuse an output path that is not a folder, or a folder with files the builder did not make."""
    if out.exists() and not out.is_dir():
        raise UserError(Problem(out, None, "output path exists and is not a folder"))
    try:
        foreign = out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file()
    except OSError as err:
        raise UserError(Problem(out, None, f"cannot read the output folder: {err.strerror}")) from None
    if foreign:
        raise UserError(Problem(out, None, f"output folder is not empty and was not made by this builder "
                                           f"(no {MARKER} file); refusing to replace it"))


def check_apart(out: Path, **inputs: Path) -> None:
    """Refuse an output folder inside an input folder (the preview rebuilt forever on its own writes,
    and the builder would read its own output as content), or an input inside the output folder (a
    build replaces the output folder whole, and would delete it)."""
    where = out.resolve()
    for what, folder in inputs.items():
        inside = folder.resolve()
        if where == inside or where.is_relative_to(inside):
            raise UserError(Problem(out, None, f"the output folder is inside the {what} folder {folder}; "
                                               "choose an --out outside it"))
        if inside.is_relative_to(where):
            raise UserError(Problem(out, None, f"the {what} folder {folder} is inside the output folder, which a "
                                               "build replaces whole; choose another --out"))


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
        out = resolve_output(out)
        check_ours(out)
        self.out = out
        self.lock = OutputLock(out).__enter__()
        try:
            recover(out)
            self.folder = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
            (self.folder / MARKER).write_text("A build in progress (or killed); safe to delete.\n", encoding="utf-8")
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

    @staticmethod
    def _patch(path: Path, spots: list[tuple[int, bytes]]) -> None:
        with open(path, "r+b") as file:
            for offset, data in spots:
                file.seek(offset)
                file.write(data)

    def commit(self, files: dict[str, bytes], patches: dict[str, list[tuple[int, bytes]]] | None = None) -> None:
        """Write what of `files` is not written yet, wait for every write, put `patches` (relative path →
        (offset, bytes) to write over what a file written early holds there) into the files written,
        then swap the folder in."""
        self.write({rel: data for rel, data in files.items() if rel not in self.written})
        old = self.out.parent / f".{self.out.name}.old-{os.getpid()}"
        try:
            for pending in self._pending:
                pending.result()
            for pending in [self._writers.submit(self._patch, self.folder / rel, spots)
                            for rel, spots in (patches or {}).items() if rel in self.written]:
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


def replace_file(folder: Path, rel: str, data: bytes) -> None:
    """Replace one file of an output folder in one rename (the preview's partial rebuilds): a reader, or
    a kill, sees the old page or the new one, never a truncated one. The temporary name is a dotfile,
    which the preview never serves."""
    target = folder / rel
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.parent.resolve().is_relative_to(folder.resolve()):  # a folder in it replaced by a link
            raise UserError(Problem(target, None, "a folder of the output leads outside it; refusing to write there "
                                                  "(delete the output folder and build again)"))
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(data)
            os.chmod(temporary, 0o644)  # as the rest of the site (mkstemp makes it private)
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as err:
        raise UserError(Problem(target, None, f"cannot write: {err.strerror or err}")) from None


def write_atomically(out: Path, files: dict[str, bytes]) -> None:
    """Write `files` into a fresh folder beside `out`, then swap it in; on any failure `out` is untouched."""
    with Staging(out) as staging:
        staging.commit(files)
