"""Errors a user can cause, each one line naming the file and, where one exists, the line."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input: `path:line: message`."""

    path: Path | str
    line: int | None
    message: str
    severity: str = "error"  # or "warning"

    def __str__(self) -> str:
        where = printable(f"{self.path}:{self.line}" if self.line else f"{self.path}")
        message = printable(self.message)
        return f"{where}: {self.severity}: {message}" if self.severity != "error" else f"{where}: {message}"


# Characters that would let content text forge or hide terminal output: line breaks (a second,
# believable `path:line:` line), ESC and other controls (colours, cursor moves, a cleared screen),
# and the bidirectional overrides and isolates (text that reads in another order than it is).
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str) -> str:
    """`text` on one line with nothing a terminal would act on: controls shown as escapes (`\\n`, `\\x1b`)."""
    return _UNPRINTABLE.sub(lambda m: _NAMED.get(m.group()) or (f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                                                                else f"\\u{ord(m.group()):04x}"), text)


class UserError(Exception):
    """An input mistake: reported in one line per problem, exit code 1, no traceback."""

    exit_code = 1

    def __init__(self, problems: list[Problem] | Problem):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def fail(path, line, message) -> UserError:
    """Return a UserError for one problem (raise it)."""
    return UserError(Problem(path, line, message))
