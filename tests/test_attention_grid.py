"""Where attention looks (builder/figures/attention/): which cell of a row is framed as its clear
favourite. Browser behaviour is in test_browser.py."""

from __future__ import annotations

from functools import lru_cache

import pytest

from conftest import CONTENT, FIXTURE

LANGS = {"zh": ("zh_Hans", "zh-Hans"), "ja": ("ja", "ja")}
NAMES = ["river-bank", "money-bank", "bank-by-the-river"]


@lru_cache(maxsize=None)
def views(code):
    from builder.figures.page import figure_views
    from builder.i18n import Language, compile_catalog, read_catalog
    from builder.scenarios import load_scenario

    locale, html_lang = LANGS[code]
    translations = compile_catalog(read_catalog(CONTENT / code / "messages.po", locale))
    scenarios = [load_scenario(FIXTURE / "scenarios" / f"{name}.toml") for name in NAMES]
    return figure_views("attention", Language(code=code, locale=locale, html_lang=html_lang), translations, scenarios, [])


def framed(grid, row):
    return grid["top"][grid["tokens"].index(row)]


@pytest.mark.parametrize("lang", LANGS)
def test_rows_that_print_alike_are_framed_alike(lang):
    """money in the bank, residual on, block 2: "in" and "the" both read 0.21 0.25 0.23 0.30. Unrounded,
    "in" leads by 0.050 and "the" by 0.045; the reader sees the same row twice, so both are framed."""
    grid = views(lang)["money-bank|on|2"]["grid"]
    printed = {token: [text for text, _ in grid["cells"][i]] for i, token in enumerate(grid["tokens"])}
    assert printed["in"] == printed["the"]
    assert framed(grid, "in") == framed(grid, "the") == grid["tokens"].index("bank")


@pytest.mark.parametrize("lang", LANGS)
def test_every_frame_is_decided_on_the_printed_weights(lang):
    """In every view, a row is framed exactly when its printed largest weight is at least 0.05 above the
    printed next one, and then on that cell; rows that read alike are framed alike."""
    for key, view in views(lang).items():
        grid = view["grid"]
        seen = {}
        for i, row in enumerate(grid["cells"]):
            printed = tuple(text for text, _ in row)
            hundredths = sorted((round(float(text) * 100) for text in printed), reverse=True)
            leads = hundredths[0] - hundredths[1] >= 5
            assert (grid["top"][i] >= 0) == leads, (key, printed)
            if leads:
                assert round(float(printed[grid["top"][i]]) * 100) == hundredths[0], (key, printed)
            assert seen.setdefault(printed, grid["top"][i]) == grid["top"][i], (key, printed)



@pytest.mark.parametrize("lang", LANGS)
def test_the_caption_states_the_frame_rule_with_the_lead_the_grid_uses(lang):
    """A reader who skips the lesson learns from the caption when a cell is framed: the caption prints the
    lead a row's largest weight needs over the next, and it is the one the frames are decided by."""
    from builder.figures.attention import CLEAR_LEAD

    for key, view in views(lang).items():
        lead = f"{CLEAR_LEAD:.2f}"
        assert lead in view["caption"], (key, view["caption"])
        grid = view["grid"]
        for i, row in enumerate(grid["cells"]):
            if grid["top"][i] >= 0:
                weights = sorted((float(text) for text, _ in row), reverse=True)
                assert round(weights[0] - weights[1], 2) >= float(lead), (key, row)


@pytest.mark.parametrize("lang", LANGS)
def test_the_grid_caption_breaks_between_phrases_like_the_figures_labels(lang):
    """The caption of a table is only as wide as the table, so on a phone it wraps. It is set like the figure's
    labels (typesetting.label_breaks, with CSS keep-all): breaks between phrases, none inside a word; a Chinese
    label breaks only at its spaces and punctuation, so the gloss 河岸边 stays whole (it broke as 河岸|边)."""
    caption = views(lang)["river-bank|on|1"]["grid"]["caption"]
    assert "\u200b" in caption  # break opportunities between phrases
    if lang == "zh":
        assert "（河岸边）" in caption
