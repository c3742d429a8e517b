"""Figure kinds: each is one unit, a folder of its own, registered once in KINDS below.

A kind's folder (builder/figures/<name>/) holds:
- `__init__.py`: `KIND`, a FigureKind: its labels (English msgids, translated by the catalogs), which
  page state its views depend on, which controls it shows, and `views(ctx)`: the data shaping, one
  view for every state the page can be in, made from the engine's trace;
- `figure.html`: its Jinja template (caption, controls, the build-time chart, the text twin);
- `figure.css`: its styles (built into assets/figures.css).
The page, the walkthrough and the text twin ask the kind; nothing else switches on its name. The
browser (templates/assets/lesson.js) draws any kind's views: it holds no figure logic of its own.

Adding a kind: a folder like the others, two lines here (its module in the import at the bottom and
its KIND in KINDS), and its messages in the catalogs (`python -m builder catalog`); AUTHORING.md walks
through it.
"""

from __future__ import annotations

import gettext
from importlib import import_module
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from builder.i18n import Language, format_number, format_vector
from builder.scenarios import Scenario
from builder.steps import Step

FOLDER = Path(__file__).parent
STATE_KEYS = ("scenario", "residual", "depth", "block")  # everything a view may depend on, in key order


def N_(message: str) -> str:
    """Mark a label for extraction into the catalogs; it is translated when a page is built."""
    return message


# Labels every figure (and the page's controls) uses.
COMMON_LABELS = {
    "on": N_("on"),
    "off": N_("off"),
    "input": N_("Input"),
    "block": N_("Block %(n)s"),
    "show_table": N_("Show the numbers"),
    "hide_table": N_("Hide the numbers"),
    "step_of": N_("Step %(n)s of %(total)s"),
    "residual": N_("Residual connection"),
    "depth": N_("Depth (blocks)"),
    "scenario": N_("Example sentence"),
    "controls": N_("Chart controls"),
    # Translators: a control's label before its setting ("Residual connection: on"). The punctuation is
    # yours: Chinese and Japanese write a full-width colon and no space, "%(label)s："
    "control_label": N_("%(label)s: "),
    # Translators: a chart's hover (its tooltip), a quantity and its value ("True length ‖x‖: 1.23"). The
    # punctuation is yours, as in a control's label: Chinese and Japanese "%(name)s：%(value)s"
    "named_value": N_("%(name)s: %(value)s"),
    # Translators: an example sentence as a caption names it: its English words, then its title in your
    # language, as the lesson text names it ("by the river bank（河岸边）")
    "sentence": N_("%(text)s (%(title)s)"),
    # Translators: a figure's number, in its caption and where the text refers to it ("Figure 2");
    # figures are numbered per page, diagrams and interactive figures alike
    "figure": N_("Figure %(n)s"),
    # Translators: two items of a list that are each a phrase with commas of its own ("A, from block 3 on;
    # B"). Chinese "%(first)s；%(second)s"
    "list_more": N_("%(first)s; %(second)s"),
    # Translators: a figure's spoken summary, then where the walkthrough is ("… Step 2 of 6"); Chinese and
    # Japanese need no space after their full stop
    "with_step": N_("%(summary)s %(step)s"),
}


@dataclass(frozen=True)
class FigureKind:
    name: str  # as lessons name it: `figures = ["depth-map"]`, `::: interactive depth-map`
    folder: Path
    state: tuple[str, ...]  # the page state its views depend on, in STATE_KEYS order
    controls: tuple[str, ...]  # the controls its template shows: scenario, residual, depth, block
    labels: dict[str, str]  # key → English msgid
    views: Callable[["FigureContext"], dict[str, dict]]
    walkthrough: bool = False  # shows the lesson's walkthrough steps (readouts, or outlines on its charts)
    defaults: dict = field(default_factory=dict)  # page state it starts in, over the scenario's (depth 6 …)
    # The words a lesson may give it after its name (`::: interactive meaning-path geography finance`):
    # returns what is wrong with them, or None. None here: the kind takes none.
    check_args: Callable[[tuple[str, ...], list[Scenario]], str | None] | None = None

    @property
    def template(self) -> str:
        return f"{self.folder.name}/figure.html"


@dataclass
class FigureContext:
    """What a kind's views are made from: the lesson's scenarios (the default first), its walkthrough,
    and the page's language."""

    lang: Language
    translations: gettext.NullTranslations
    scenarios: list[Scenario]
    walkthrough: list[Step] = field(default_factory=list)
    kind: FigureKind | None = None
    args: tuple[str, ...] = ()  # the words after the kind's name where the lesson places it (checked by the kind)

    def t(self, key: str, **values) -> str:
        """The kind's label `key`, translated, placeholders filled (plain text: escaped where it is output)."""
        labels = self.kind.labels if self.kind else {}
        text = self.translations.gettext(labels[key] if key in labels else COMMON_LABELS[key])
        return text % values if values else text

    def dims(self, scenario: Scenario) -> list[str]:
        return [self.translations.pgettext("dimension", key) for key in scenario.dimensions]

    def title(self, scenario: Scenario) -> str:
        """The scenario's title in the page's language (catalog context "scenario")."""
        return self.translations.pgettext("scenario", scenario.title)

    def sentence(self, scenario: Scenario) -> str:
        """The scenario as captions name it: its English words, then its title (the lessons name it so)."""
        return self.t("sentence", text=" ".join(scenario.tokens), title=self.title(scenario))

    def num(self, value: float, decimals: int = 2) -> str:
        return format_number(value, self.lang.locale, decimals)

    def vec(self, values, decimals: int = 2) -> str:
        return format_vector(values, self.lang.locale, decimals)

    def named(self, name: str, value: float) -> str:
        """A hover's line: a quantity's name and its value, joined with the language's punctuation."""
        return self.t("named_value", name=name, value=self.num(value))

    def listed(self, items) -> str:
        """Phrases one after another, with the language's separator (list_more)."""
        items = list(items)
        text = items[0] if items else ""
        for item in items[1:]:
            text = self.t("list_more", first=text, second=item)
        return text

    def on_off(self, residual: bool) -> str:
        return self.t("on" if residual else "off")

    def block(self, n: int) -> str:
        return self.t("input") if n == 0 else self.t("block", n=n)


def view_key(state: dict, keys: tuple[str, ...]) -> str:
    """The key of a view in the page data: the values of the state it depends on, joined by `|`."""
    parts = []
    for key in keys:
        value = state[key]
        parts.append(("on" if value else "off") if key == "residual" else str(value))
    return "|".join(parts)


# The kinds, one line each (a kind's folder, builder/figures/<unit>/, holds everything else about it).
UNITS = (
    "depth_map",
    "norm_compare",
    "attention",
    "meaning_path",
)
KINDS: dict[str, FigureKind] = {kind.name: kind for kind in (import_module(f"builder.figures.{unit}").KIND for unit in UNITS)}
