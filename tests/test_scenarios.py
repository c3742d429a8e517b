"""Scenario files are data: bad ones give one line naming the file and key, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from builder.scenarios import load_scenario, scenario_to_data, to_json
from conftest import DEFAULT_SCENARIO, ROOT


def run_cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "builder", *args], cwd=cwd, capture_output=True, text=True)


BROKEN = {
    "invalid TOML": (lambda t: t.replace("depth = 3", "depth = = 3"), "invalid TOML", "depth"),
    "missing key": (lambda t: t.replace('tracked = "bank"\n', ""), "missing key 'tracked'", None),
    "wrong shape": (lambda t: t.replace("w_q = [\n  [", "w_q = [\n  [9.0, "), "weights.w_q: expected shape (4, 4)", "w_q"),
    "NaN": (lambda t: t.replace("b_2 = [", "b_2 = [nan, ").replace("b_2 = [nan, 0.11, ", "b_2 = [nan, "), "NaN", "b_2"),
    "inf": (lambda t: t.replace('vector = [0.30, 0.30, 0.00, 1.00]', 'vector = [inf, 0.30, 0.00, 1.00]'), "NaN or infinity", "vector"),
    "unknown tracked token": (lambda t: t.replace('tracked = "bank"', 'tracked = "money"'), "'money' is not one of the tokens", "tracked"),
    "depth 0": (lambda t: t.replace("depth = 3", "depth = 0"), "depth: must be 1 to 6", "depth"),
    "depth 7": (lambda t: t.replace("depth = 3", "depth = 7"), "depth: must be 1 to 6", "depth"),
    "string depth": (lambda t: t.replace("depth = 3", 'depth = "3"'), "depth: expected an integer", "depth"),
    "three dimensions": (lambda t: t.replace('"bank_identity"]', "]").replace('"function_word", ]', '"function_word"]'), "dimensions", "dimensions"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_bad_scenario_gives_one_line_with_file_and_key(content_copy, case):
    edit, message, key = BROKEN[case]
    path = content_copy / "scenarios" / "river-bank.toml"
    text = path.read_text(encoding="utf-8")
    broken = edit(text)
    assert broken != text, "the edit must change the file"
    path.write_text(broken, encoding="utf-8")
    result = run_cli("check", "--content", str(content_copy))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"{path}:"), first
    assert message in first, first
    if key is not None:
        line = int(first.split(":")[1])
        assert key in broken.splitlines()[line - 1], (line, broken.splitlines()[line - 1])


def test_same_scenario_gives_byte_identical_json():
    a = to_json(scenario_to_data(load_scenario(DEFAULT_SCENARIO)))
    b = to_json(scenario_to_data(load_scenario(DEFAULT_SCENARIO)))
    assert a == b


def test_trace_json_follows_the_contract():
    data = json.loads(to_json(scenario_to_data(load_scenario(DEFAULT_SCENARIO))))
    assert data["version"] == 1 and data["tokens"][data["tracked"]] == "bank"
    assert set(data["runs"]) == {"pre-on", "pre-off", "post-on"}
    run = data["runs"]["pre-on"]
    assert len(run["steps"]) == 2 * data["max_depth"]
    assert [s["sublayer"] for s in run["steps"][:2]] == ["attention", "ffn"]
    assert "attention" in run["steps"][0] and "attention" not in run["steps"][1]
    assert len(run["blocks"]["cumulative"]) == data["max_depth"]
    numbers = json.dumps(run)
    assert "-0.0," not in numbers and "e-" not in numbers


def test_cli_help_lists_every_command():
    result = run_cli("--help")
    assert result.returncode == 0
    for command in ("build", "check", "status", "serve", "catalog", "mark-current"):
        assert command in result.stdout


def test_unknown_flag_exits_non_zero_without_traceback():
    result = run_cli("build", "--no-such-flag")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "unrecognized arguments: --no-such-flag" in result.stderr
