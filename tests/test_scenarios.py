"""Scenario files are data: bad ones give one line naming the file and key, never a traceback."""

from __future__ import annotations

import json
import subprocess
import tomllib
import sys

import numpy as np
import pytest

from builder.scenarios import load_scenario, scenario_to_data, to_json
from conftest import DEFAULT_SCENARIO, ROOT


def run_cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "builder", *args], cwd=cwd, capture_output=True, text=True)


SCENARIO, MODEL = "scenarios/river-bank.toml", "models/bank-block.toml"
BROKEN = {
    "invalid TOML": (SCENARIO, lambda t: t.replace("depth = 3", "depth = = 3"), "invalid TOML", "depth"),
    "missing key": (SCENARIO, lambda t: t.replace('tracked = "bank"\n', ""), "missing key 'tracked'", None),
    "unknown key": (SCENARIO, lambda t: t.replace("depth = 3", "depht = 3"), "depht: unknown key", "depht"),
    "weights in a scenario": (SCENARIO, lambda t: t + "\n[weights]\nw_q = [[1.0]]\n",
                              "weights: weights and dimensions belong to the model", "[weights]"),
    "unknown model": (SCENARIO, lambda t: t.replace('model = "bank-block"', 'model = "bank-blok"'),
                      "unknown model 'bank-blok' (have: bank-block", "model"),
    "word not in the vocabulary": (SCENARIO, lambda t: t.replace('"river", "bank"]', '"stream", "bank"]'),
                                   "'stream' is not in the vocabulary", "tokens"),
    "inf": (SCENARIO, lambda t: t.replace('"bank"]', '{ text = "bank", vector = [inf, 0.3, 0.0, 1.0] }]'),
            "NaN or infinity", "tokens"),
    "unknown tracked token": (SCENARIO, lambda t: t.replace('tracked = "bank"', 'tracked = "money"'),
                              "'money' is not one of the tokens", "tracked"),
    "depth 0": (SCENARIO, lambda t: t.replace("depth = 3", "depth = 0"), "depth: must be 1 to 6", "depth"),
    "depth 7": (SCENARIO, lambda t: t.replace("depth = 3", "depth = 7"), "depth: must be 1 to 6", "depth"),
    "string depth": (SCENARIO, lambda t: t.replace("depth = 3", 'depth = "3"'), "depth: expected an integer", "depth"),
    "wrong shape": (MODEL, lambda t: t.replace("w_q = [\n  [", "w_q = [\n  [9.0, "), "weights.w_q: expected shape (4, 4)", "w_q"),
    "NaN": (MODEL, lambda t: t.replace("b_2 = [0.11, ", "b_2 = [nan, "), "NaN", "b_2"),
    "vocabulary vector": (MODEL, lambda t: t.replace("river = [0.99, ", "river = [0.99, 1.0, "),
                          "vocabulary.river: expected shape (4)", "river"),
    "three dimensions": (MODEL, lambda t: t.replace(', "bank_identity"]', "]"), "dimensions", "dimensions"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_bad_scenario_or_model_gives_one_line_with_file_and_key(content_copy, case):
    name, edit, message, key = BROKEN[case]
    path = content_copy / name
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


def test_every_scenario_names_the_one_model_and_holds_no_weights():
    from builder.models import load_model

    model = load_model(ROOT / "content" / "models" / "bank-block.toml")
    for path in sorted((ROOT / "content" / "scenarios").glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        assert data["model"] == "bank-block" and "weights" not in data and "dimensions" not in data, path.name
        scenario = load_scenario(path)
        for field in ("w_q", "w_k", "w_v", "w_o", "w_1", "b_1", "w_2", "b_2"):
            assert getattr(scenario.weights, field) is getattr(model.weights, field) or np.array_equal(
                getattr(scenario.weights, field), getattr(model.weights, field)), (path.name, field)


def test_a_word_takes_its_vector_from_the_vocabulary_unless_it_gives_its_own(content_copy):
    path = content_copy / "scenarios" / "river-bank.toml"
    path.write_text(path.read_text(encoding="utf-8").replace(
        '"river", "bank"]', '"river", { text = "bank", vector = [0.5, 0.3, 0.0, 1.0] }]'), encoding="utf-8")
    scenario = load_scenario(path)
    assert scenario.x0[2].tolist() == [0.99, -0.20, 0.01, -0.01]  # river, from the vocabulary
    assert scenario.x0[3].tolist() == [0.5, 0.3, 0.0, 1.0]
    assert scenario.own_vectors == (False, False, False, True)


def test_a_refit_model_reaches_every_scenario_including_new_ones(content_copy):
    """The weights are stored once: a scenario written later runs through the same, refitted block."""
    (content_copy / "scenarios" / "new-one.toml").write_text(
        'title = "the bank"\nmodel = "bank-block"\ntokens = ["the", "bank"]\ntracked = "bank"\ndepth = 2\n'
        'residual = true\n', encoding="utf-8")
    model = content_copy / "models" / "bank-block.toml"
    model.write_text(model.read_text(encoding="utf-8").replace("b_2 = [0.11, ", "b_2 = [0.55, "), encoding="utf-8")
    from builder.scenarios import load_scenarios

    scenarios, problems = load_scenarios(content_copy / "scenarios")
    assert problems == [] and len(scenarios) == 4
    assert all(s.weights.b_2[0] == 0.55 for s in scenarios.values())


VECTOR_WARNINGS = {
    "zero vector": ('{ text = "bank", vector = [0.0, 0.0, 0.0, 0.0] }', "token 'bank': its vector is zero"),
    "constant vector": ('{ text = "bank", vector = [0.5, 0.5, 0.5, 0.5] }', "token 'bank': all 4 components are equal"),
    "huge vector": ('{ text = "bank", vector = [900, -900, 900, -900] }', "token 'bank': its length 1.8e+03 is far outside"),
    "tiny vector": ('{ text = "bank", vector = [0.01, 0.0, 0.0, 0.02] }', "token 'bank': its length 0.022 is far outside"),
    "same vector as another word": ('{ text = "bank", vector = [0.99, -0.20, 0.01, -0.01] }',
                                    "token 'bank': has the same vector as 'river'"),
}


@pytest.mark.parametrize("case", VECTOR_WARNINGS)
def test_a_vector_the_block_cannot_make_sense_of_is_a_warning_naming_the_token(content_copy, case):
    token, message = VECTOR_WARNINGS[case]
    path = content_copy / "scenarios" / "river-bank.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('"river", "bank"]', f'"river", {token}]'), encoding="utf-8")
    result = run_cli("check", "--content", str(content_copy))
    assert result.returncode == 0, result.stderr
    line = path.read_text(encoding="utf-8").splitlines().index(next(
        row for row in path.read_text(encoding="utf-8").splitlines() if row.startswith("tokens"))) + 1
    assert f"{path}:{line}: warning: {message}" in result.stderr, result.stderr
    assert "AUTHORING.md" in result.stderr
    assert run_cli("check", "--strict", "--content", str(content_copy)).returncode == 1


def test_the_same_word_twice_is_no_warning(content_copy):
    path = content_copy / "scenarios" / "river-bank.toml"
    path.write_text(path.read_text(encoding="utf-8").replace('tokens = ["by", "the", "river", "bank"]',
                                                             'tokens = ["the", "bank", "by", "the", "river"]'), encoding="utf-8")
    result = run_cli("check", "--content", str(content_copy))
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr


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
