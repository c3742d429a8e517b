"""The block engine: the lesson's figures and the invariants the lesson relies on."""

from __future__ import annotations

import numpy as np
import pytest

from builder import engine
from builder.scenarios import load_scenario
from conftest import DEFAULT_SCENARIO

# The lesson's figures (seeds 000_*, 004_*): token "bank", residual on, "about" to one decimal.
LESSON = {
    "block 1 attention correction": [0.7, -0.3, -0.2, 0.0],
    "stream after block 1 attention": [1.0, 0.0, -0.2, 1.0],
    "block 1 FFN correction": [0.3, -0.1, -0.2, 0.2],
    "stream after block 1": [1.3, -0.1, -0.4, 1.2],
    "stream after block 2": [2.3, -0.6, -0.6, 1.4],
    "stream after block 3": [3.4, -1.2, -0.8, 1.5],
}


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(DEFAULT_SCENARIO)


@pytest.fixture(scope="module")
def on(scenario):
    return scenario.run("pre", True)


@pytest.fixture(scope="module")
def off(scenario):
    return scenario.run("pre", False)


def bank(scenario, rows):
    return rows[scenario.tracked]


def figures_of(scenario, trace):
    s = trace.steps
    return {
        "block 1 attention correction": bank(scenario, s[0].delta),
        "stream after block 1 attention": bank(scenario, s[0].after),
        "block 1 FFN correction": bank(scenario, s[1].delta),
        "stream after block 1": bank(scenario, s[1].after),
        "stream after block 2": bank(scenario, s[3].after),
        "stream after block 3": bank(scenario, s[5].after),
    }


def test_default_scenario_is_the_lessons(scenario):
    assert scenario.tokens == ["by", "the", "river", "bank"]
    assert scenario.tokens[scenario.tracked] == "bank"
    assert (scenario.depth, scenario.residual) == (3, True)


def test_input_is_exactly_the_lessons(scenario):
    assert bank(scenario, scenario.x0).tolist() == [0.3, 0.3, 0.0, 1.0]


@pytest.mark.parametrize("figure", LESSON)
def test_each_lesson_figure_rounds_to_the_trace(scenario, on, figure):
    got = figures_of(scenario, on)[figure]
    assert np.abs(got - np.array(LESSON[figure])).max() <= 0.05, f"{figure}: {np.round(got, 3)}"


def test_geography_series_climbs_0_3_1_3_2_3_3_4(scenario, on):
    series = [bank(scenario, scenario.x0)[0]] + [bank(scenario, b)[0] for b in on.block_outputs()[:3]]
    assert np.round(series, 1).tolist() == [0.3, 1.3, 2.3, 3.4]


def test_bank_identity_stays_near_one_with_residual(scenario, on):
    identity = [bank(scenario, b)[3] for b in on.block_outputs()[:3]]
    assert all(0.9 <= v <= 1.6 for v in identity)


def test_bank_attends_most_to_river_in_block_1(scenario, on):
    weights = bank(scenario, on.steps[0].attention)
    assert scenario.tokens[int(np.argmax(weights))] == "river"


def test_residual_off_depth_6_length_is_about_0_4(scenario, off):
    length = np.linalg.norm(bank(scenario, off.block_outputs()[5]))
    assert 0.35 <= length <= 0.45


def test_residual_off_weakens_bank_identity(scenario, on, off):
    with_residual = bank(scenario, on.block_outputs()[5])[3]
    without = bank(scenario, off.block_outputs()[5])[3]
    assert abs(without) < 0.5 * abs(with_residual)


def test_one_block_points_the_same_way_with_or_without_residual(scenario, on, off):
    a, b = bank(scenario, on.block_outputs()[0]), bank(scenario, off.block_outputs()[0])
    assert a @ b / (np.linalg.norm(a) * np.linalg.norm(b)) >= 0.9


def test_residual_on_stream_is_input_plus_every_correction(scenario, on):
    total = on.x0 + sum(s.delta for s in on.steps)
    np.testing.assert_allclose(on.block_outputs()[-1], total, atol=1e-12)


def test_residual_off_stream_is_the_latest_sublayer_output(off):
    for step in off.steps:
        np.testing.assert_array_equal(step.after, step.delta)


def test_attention_rows_sum_to_one(on):
    for step in on.steps:
        if step.attention is not None:
            np.testing.assert_allclose(step.attention.sum(axis=1), 1.0, atol=1e-12)


def test_sublayers_read_the_normalised_stream(on):
    for step in on.steps:
        np.testing.assert_allclose(step.normed, engine.norm(step.before))
        np.testing.assert_allclose(step.normed.mean(axis=1), 0.0, atol=1e-12)


@pytest.mark.parametrize("residual", [True, False])
def test_block_is_permutation_equivariant(scenario, residual):
    order = np.array([2, 0, 3, 1])
    plain = engine.run(scenario.x0, scenario.weights, 6, residual=residual)
    shuffled = engine.run(scenario.x0[order], scenario.weights, 6, residual=residual)
    for a, b in zip(plain.steps, shuffled.steps):
        np.testing.assert_allclose(a.after[order], b.after, atol=1e-12)


def test_ffn_acts_on_each_position_independently(scenario):
    x = engine.norm(scenario.x0)
    together = engine.ffn(x, scenario.weights)
    for i in range(len(x)):
        np.testing.assert_allclose(engine.ffn(x[i : i + 1], scenario.weights)[0], together[i])


def test_shallower_run_is_a_prefix_of_the_deeper_one(scenario):
    deep = engine.run(scenario.x0, scenario.weights, 6)
    for depth in range(1, 6):
        shallow = engine.run(scenario.x0, scenario.weights, depth)
        np.testing.assert_array_equal(shallow.block_outputs(), deep.block_outputs()[:depth])


def test_depth_map_figures(on, off):
    np.testing.assert_allclose(on.cumulative_correction(), np.linalg.norm(on.block_outputs() - on.x0, axis=-1))
    np.testing.assert_allclose(off.latest_output_size(), np.linalg.norm(off.block_outputs(), axis=-1))


def test_post_norm_normalises_after_adding(scenario):
    post = engine.run(scenario.x0, scenario.weights, 2, norm_position="post")
    for step in post.steps:
        np.testing.assert_allclose(step.after, engine.norm(step.before + step.delta))


@pytest.mark.parametrize("depth", [0, 7])
def test_depth_outside_1_to_6_is_refused(scenario, depth):
    with pytest.raises(ValueError):
        engine.run(scenario.x0, scenario.weights, depth)
