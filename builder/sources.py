"""Reading the files contributors edit (and writing the few the builder keeps there): text and TOML,
every failure one `path:line: message` problem.

Content is semi-trusted input: a folder where a file should be, a broken symbolic link, a file in
another encoding, Windows line endings, TOML nested thousands deep or integers thousands of digits
long must each end in a clear problem (or, for CRLF, simply work), never in a traceback.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import tomllib
from pathlib import Path

from builder.errors import Problem, UserError

_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column \d+\)")
_TABLE_HEADER = re.compile(r"\[\[?\s*([A-Za-z0-9_.\"' -]+?)\s*\]\]?\s*(#.*)?$")


MAX_FILE_BYTES = 1024 * 1024  # a lesson, catalog, scenario or site.toml: 1 MB (the largest lesson is ~20 KB)
# Titles are repeated in every page's head, lists and figure states: a 200 KB scenario title made a
# 42 MB page. Lesson and scenario titles and their translations are at most this long; summaries longer.
MAX_TITLE_CHARS = 120
MAX_SUMMARY_CHARS = 600


def read_bytes(path: Path, limit: int | None = MAX_FILE_BYTES, missing: str = "missing file") -> bytes:
    """Read a regular file of at most `limit` bytes, turning every way it can be unreadable into a
    problem naming it. A FIFO would block forever and a link to /dev/zero would never end, so anything
    but a regular file is refused before a byte is read."""
    try:
        # O_NONBLOCK: opening a FIFO for reading must not wait for a writer; it is refused just below.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise UserError(Problem(path, None, "broken symbolic link" if path.is_symlink() else missing)) from None
    except OSError as err:
        raise UserError(Problem(path, None, _os_reason(err))) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise UserError(Problem(path, None, "is a folder, not a file"))
        if not stat.S_ISREG(info.st_mode):
            raise UserError(Problem(path, None, "is not a regular file (a FIFO, device or socket); "
                                                "content files must be plain files"))
        if limit is not None and info.st_size > limit:
            raise UserError(Problem(path, None, _too_large(info.st_size, limit)))
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 20):  # a file still growing is stopped at the limit too
            chunks.append(chunk)
            size += len(chunk)
            if limit is not None and size > limit:
                raise UserError(Problem(path, None, _too_large(size, limit)))
        return b"".join(chunks)
    except OSError as err:
        raise UserError(Problem(path, None, _os_reason(err))) from None
    finally:
        os.close(fd)


def _too_large(size: int, limit: int) -> str:
    return f"is {size:,} bytes; a content file may be at most {limit:,} bytes (1 MB)"


def _os_reason(err: OSError) -> str:
    if err.errno == errno.ELOOP:
        return "symbolic link loop"
    if err.errno == errno.EISDIR:
        return "is a folder, not a file"
    return f"cannot read: {err.strerror or err}"


def list_folder(folder: Path, suffix: str = "") -> list[Path]:
    """The entries of `folder` whose names end with `suffix`, hidden names left out, sorted. An
    unreadable folder is a problem naming it (a silently empty listing would drop its lessons)."""
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries]
    except FileNotFoundError:
        return []
    except OSError as err:
        raise UserError(Problem(folder, None, f"cannot read the folder: {err.strerror or err}")) from None
    return sorted(folder / name for name in names if name.endswith(suffix) and not name.startswith("."))


def content_target(path: Path, content: Path) -> Path:
    """The file that writing `path` would replace, refused unless it is a regular file (or nothing yet)
    inside the content folder. Check every target before writing any, so a refusal writes nothing."""
    root = content.resolve()
    target = Path(os.path.realpath(path))  # follows every link, of the file and of the folders above it
    if not target.is_relative_to(root):
        what = "a symbolic link" if path.is_symlink() else "in a linked folder"
        raise UserError(Problem(path, None, f"is {what} leading outside the content folder (to {target}); "
                                            "refusing to write through it"))
    if target.exists() and not target.is_file():
        raise UserError(Problem(path, None, "is not a regular file; refusing to replace it"))
    return target


def write_content_file(path: Path, data: bytes, content: Path) -> None:
    """Write a file the builder keeps under content/ (a catalog, a lesson's translation record) the way
    an editor saves: a temporary file beside it, then one rename, so a crash leaves the old file or the
    new one, never half of one. A symbolic link is written through only when it stays inside content/:
    `messages.pot` linked to `../victim.txt` overwrote that file, and a dangling `messages.po` link
    created one outside."""
    target = content_target(path, content)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else None
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            if mode is not None:
                os.chmod(temporary, mode)  # keep the file's permissions; mkstemp makes it private
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(temporary, 0o666 & ~umask)
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as err:
        raise UserError(Problem(path, None, f"cannot write: {err.strerror or err}")) from None


def read_text(path: Path) -> str:
    """Read a UTF-8 file with its line endings made `\\n` (editors on Windows save CRLF)."""
    raw = read_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise UserError(Problem(path, line, "not valid UTF-8")) from None
    return text.replace("\r\n", "\n")


def parse_toml(text: str, path: Path, first_line: int = 1, what: str = "invalid TOML") -> dict:
    """Parse TOML whose first line is line `first_line` of `path`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        match = _TOML_POSITION.search(str(err))
        line = int(match.group(1)) + first_line - 1 if match else first_line
        raise UserError(Problem(path, line, f"{what}: {_TOML_POSITION.sub('', str(err))}")) from None
    except RecursionError:
        raise UserError(Problem(path, first_line, f"{what}: arrays or tables nested too deeply")) from None
    except ValueError as err:  # an integer of more than 4300 digits, which Python refuses to convert
        raise UserError(Problem(path, first_line, f"{what}: {err}")) from None


def read_toml(path: Path) -> tuple[str, dict]:
    """Read and parse a TOML file: (its text, its data)."""
    text = read_text(path)
    return text, parse_toml(text, path)


def key_line(text: str, key: str, table: str | None = None, index: int = 0, first_line: int = 1) -> int | None:
    """Return the line where `key = ...` is set: at the top level, or in the `index`-th `[table]` /
    `[[table]]` when `table` is given. Lines count from `first_line` (the text's own first line)."""
    current, seen = None, -1
    for number, line in enumerate(text.split("\n"), first_line):
        stripped = line.strip()
        header = _TABLE_HEADER.fullmatch(stripped)
        if header and not stripped.startswith(("[\"", "['")):
            current = header.group(1).replace(" ", "")
            seen += current == table
            continue
        if current == table and (table is None or seen == index) and re.match(rf"{re.escape(key)}\s*=", stripped):
            return number
    return None


def table_line(text: str, table: str, index: int = 0, first_line: int = 1) -> int | None:
    """Return the line of the `index`-th `[table]` or `[[table]]` header."""
    seen = -1
    for number, line in enumerate(text.split("\n"), first_line):
        stripped = line.strip()
        header = _TABLE_HEADER.fullmatch(stripped)
        if header and header.group(1).replace(" ", "") == table:
            seen += 1
            if seen == index:
                return number
    return None


# What `python -m builder new` leaves for the author or translator to write.
PLACEHOLDER = re.compile(r"\[\[TODO:[^\]\n]*\]\]")


def placeholders(path: Path, text: str) -> list[Problem]:
    """A warning for each `[[TODO: …]]` placeholder left in a file."""
    return [Problem(path, number, f"placeholder left by `python -m builder new`: {match.group(0)} "
                                  "(see AUTHORING.md)", "warning")
            for number, line in enumerate(text.split("\n"), 1) for match in PLACEHOLDER.finditer(line)]
