"""What changed in a source lesson since its translation was marked current, line by line and, within a
line, character by character, so that it reads for Chinese and Japanese (which have no spaces for a
word diff to split on) as well as for Latin text.

Each changed line carries its line number in the source (the recorded copy's for removed lines) and
its text as segments: ("equal" | "delete" | "insert", text). Character runs are grouped so the diff
reads as edits, not noise: two changes separated by one or two unchanged characters are shown as one,
and a change inside a Latin word takes in the whole word.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from difflib import SequenceMatcher

from builder.translation import Change

MIN_GAP = 3  # unchanged runs shorter than this between two changes are shown as part of one change
MIN_LINE_SIMILARITY = 0.3  # below this, a replaced line is shown as removed and added, not as edits
WORD = re.compile(r"[A-Za-z0-9_]")


@dataclass(frozen=True)
class Line:
    kind: str  # "added", "removed" or "changed"
    old: int | None  # line number in the recorded copy of the source
    new: int | None  # line number in the source now
    segments: tuple[tuple[str, str], ...]

    def as_dict(self) -> dict:
        return {"kind": self.kind, "old_line": self.old, "new_line": self.new,
                "segments": [list(segment) for segment in self.segments]}


def char_diff(a: str, b: str) -> tuple[tuple[str, str], ...]:
    """The character-level diff of one line, grouped for reading."""
    ops = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    regions = []
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            continue
        # A change inside a Latin word takes in the whole word, within the unchanged runs around it.
        low = ops[k - 1][1] if k > 0 else 0
        high = ops[k + 1][2] if k + 1 < len(ops) else len(a)
        changed = a[i1:i2] or b[j1:j2]
        if WORD.match(changed[0]):
            while i1 > low and WORD.match(a[i1 - 1]):
                i1, j1 = i1 - 1, j1 - 1
        if WORD.match(changed[-1]):
            while i2 < high and WORD.match(a[i2]):
                i2, j2 = i2 + 1, j2 + 1
        regions.append([i1, i2, j1, j2])
    merged: list[list[int]] = []
    for region in regions:
        if merged and region[0] - merged[-1][1] < MIN_GAP:
            merged[-1][1], merged[-1][3] = region[1], region[3]
        else:
            merged.append(region)
    segments, i = [], 0
    for i1, i2, j1, j2 in merged:
        if i1 > i:
            segments.append(("equal", a[i:i1]))
        if i2 > i1:
            segments.append(("delete", a[i1:i2]))
        if j2 > j1:
            segments.append(("insert", b[j1:j2]))
        i = i2
    if i < len(a):
        segments.append(("equal", a[i:]))
    return tuple(segments)


def diff_lines(change: Change) -> list[Line]:
    """The lines of one changed part: what was added, removed, or edited within a line."""
    if change.kind == "added":
        return [Line("added", None, change.new.start + i, (("insert", text),))
                for i, text in enumerate(change.new.lines) if text.strip()]
    if change.kind == "removed":
        return [Line("removed", change.old.start + i, None, (("delete", text),))
                for i, text in enumerate(change.old.lines) if text.strip()]
    old, new = change.old, change.new
    a = [line.rstrip() for line in old.lines]
    b = [line.rstrip() for line in new.lines]
    out: list[Line] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        pairs = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        for k in range(pairs):
            x, y = a[i1 + k], b[j1 + k]
            if SequenceMatcher(None, x, y, autojunk=False).ratio() >= MIN_LINE_SIMILARITY:
                out.append(Line("changed", old.start + i1 + k, new.start + j1 + k, char_diff(x, y)))
            else:
                if x.strip():
                    out.append(Line("removed", old.start + i1 + k, None, (("delete", x),)))
                if y.strip():
                    out.append(Line("added", None, new.start + j1 + k, (("insert", y),)))
        for k in range(i1 + pairs, i2):
            if a[k].strip():
                out.append(Line("removed", old.start + k, None, (("delete", a[k]),)))
        for k in range(j1 + pairs, j2):
            if b[k].strip():
                out.append(Line("added", None, new.start + k, (("insert", b[k]),)))
    return out


def change_as_dict(change: Change, source_path, copy_path) -> dict:
    part = change.new or change.old
    return {
        "section": change.section, "change": change.kind,
        "source": str(source_path if change.new else copy_path),
        "lines": [part.first, part.end] if change.new else None,
        "old_lines": [change.old.first, change.old.end] if change.old else None,
        "old_text": change.old.normalized if change.old else None,
        "new_text": change.new.normalized if change.new else None,
        "diff": [line.as_dict() for line in diff_lines(change)],
    }


class Style:
    """How segments are marked in a terminal: colour when it is one (and NO_COLOR is unset), and
    git's word-diff markers otherwise, so a diff pasted into an issue still reads."""

    def __init__(self, stream=None):
        stream = stream or sys.stdout
        self.colour = hasattr(stream, "isatty") and stream.isatty() and not os.environ.get("NO_COLOR")

    def segment(self, kind: str, text: str) -> str:
        if kind == "equal":
            return text
        if self.colour:
            return f"\033[{'9;31' if kind == 'delete' else '32'}m{text}\033[0m"
        return f"[-{text}-]" if kind == "delete" else f"{{+{text}+}}"

    def line(self, line: Line) -> str:
        mark = {"added": "+", "removed": "-", "changed": "~"}[line.kind]
        number = f"{line.new:>5}" if line.new is not None else f"was {line.old}".rjust(5)
        if line.kind == "changed":
            text = "".join(self.segment(kind, text) for kind, text in line.segments)
        else:
            text = line.segments[0][1]
            if self.colour:
                text = self.segment("delete" if line.kind == "removed" else "insert", text)
        return f"  {number} {mark} {text}"
