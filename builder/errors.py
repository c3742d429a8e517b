"""Errors a user can cause, each one line naming the file and, where one exists, the line."""

from __future__ import annotations

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
        where = f"{self.path}:{self.line}" if self.line else f"{self.path}"
        return f"{where}: {self.severity}: {self.message}" if self.severity != "error" else f"{where}: {self.message}"


class UserError(Exception):
    """An input mistake: reported in one line per problem, exit code 1, no traceback."""

    exit_code = 1

    def __init__(self, problems: list[Problem] | Problem):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def fail(path, line, message) -> UserError:
    """Return a UserError for one problem (raise it)."""
    return UserError(Problem(path, line, message))
