"""Reading the files contributors edit: text and TOML, every failure one `path:line: message` problem.

Content is semi-trusted input: a folder where a file should be, a broken symbolic link, a file in
another encoding, Windows line endings, TOML nested thousands deep or integers thousands of digits
long must each end in a clear problem (or, for CRLF, simply work), never in a traceback.
"""

from __future__ import annotations

import errno
import re
import tomllib
from pathlib import Path

from builder.errors import Problem, UserError

_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column \d+\)")
_TABLE_HEADER = re.compile(r"\[\[?\s*([A-Za-z0-9_.\"' -]+?)\s*\]\]?\s*(#.*)?$")


def read_bytes(path: Path) -> bytes:
    """Read a file, turning every way it can be unreadable into a problem naming it."""
    try:
        return path.read_bytes()
    except IsADirectoryError:
        raise UserError(Problem(path, None, "is a folder, not a file")) from None
    except FileNotFoundError:
        message = "broken symbolic link" if path.is_symlink() else "missing file"
        raise UserError(Problem(path, None, message)) from None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise UserError(Problem(path, None, "symbolic link loop")) from None
        raise UserError(Problem(path, None, f"cannot read: {err.strerror or err}")) from None


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
