"""The recipe base every experiment's settings share, the environment record, and the number formats."""

import json
from dataclasses import dataclass

import pytest

from explorer import environment, formatting, shipped
from explorer.experiments import crossover, depth, four_steps, lengths
from explorer.recipe import Recipe, check_seeds

RECIPES = [crossover.PRESETS["main"], depth.PRESETS["main"], lengths.PRESETS["main"], four_steps.AblationSettings()]


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda r: type(r).__name__)
def test_every_recipe_reads_back_from_json_exactly(recipe):
    as_json = json.loads(json.dumps(recipe.to_dict()))
    assert recipe.to_dict() == as_json
    assert type(recipe).from_dict(as_json) == recipe
    assert isinstance(recipe, Recipe) and recipe.same_settings(as_json)


def test_a_slice_keeps_its_settings_and_a_changed_setting_does_not():
    main = crossover.PRESETS["main"]
    assert main.same_settings({**main.to_dict(), "windows": [4], "seeds": [0], "steps": 20})
    assert not main.same_settings({**main.to_dict(), "lr": 1e-3})


@pytest.mark.parametrize("seeds", [(), (1, 1), (-1,), tuple(range(13))])
def test_seeds_are_checked_the_same_way_everywhere(seeds):
    with pytest.raises(ValueError, match="give 1 to 8 distinct non-negative seeds"):
        check_seeds(seeds, 8)
    for make in (
        lambda: crossover.SweepConfig(seeds=seeds),
        lambda: depth.DepthConfig(seeds=seeds),
        lambda: lengths.ToyConfig(seeds=seeds),
        lambda: four_steps.AblationSettings(seeds=seeds),
    ):
        with pytest.raises(ValueError, match="distinct non-negative seeds"):
            make()


def test_the_training_config_takes_the_shared_fields_and_overrides():
    @dataclass(frozen=True)
    class Tiny(Recipe):
        steps: int = 7
        lr: float = 1e-3
        width: int = 16

    cfg = Tiny().train_config(3, time_budget_s=5.0)
    assert (cfg.steps, cfg.lr, cfg.seed, cfg.time_budget_s) == (7, 1e-3, 3, 5.0)


def test_the_environment_names_what_decides_a_bit_exact_replay(tmp_path):
    now = environment.current(1)
    assert set(environment.REPLAY_FIELDS) <= set(now) and now["threads"] == 1
    assert environment.replay_difference(now, now) == []
    assert environment.replay_difference({**now, "cpu_capability": "NEON"}, now) == [
        f"cpu_capability: NEON -> {now['cpu_capability']}"
    ]
    assert environment.replay_difference(None, now) == ["no environment recorded with the result"]
    path = shipped.write(tmp_path / "result.json", {"config": {"a": 1}})
    assert oct(path.stat().st_mode & 0o777) == "0o644"
    record = shipped.load(path)
    assert record["config"] == {"a": 1} and shipped.environment_of(record) == now
    (tmp_path / "bad.json").write_text("[1, 2]")
    assert shipped.load(tmp_path / "bad.json") is None and shipped.load(tmp_path / "missing.json") is None


def test_numbers_read_the_same_everywhere():
    assert [formatting.p_text(p) for p in (0.0004, 0.0123, float("nan"), None)] == ["< 0.001", "0.012", "n/a", "n/a"]
    assert formatting.p_label(0.0123) == "p = 0.012" and formatting.p_label(1e-5) == "p < 0.001"
    assert formatting.si(3.5e9) == "3.5G" and formatting.si(12) == "12"
    assert formatting.sci(1.1e10) == "1.10e10" and formatting.sci(float("inf")) == "∞"
    assert formatting.seed_list([0]) == "seed 0" and formatting.seed_list([2, 0, 1]) == "seeds 0-2"
    assert formatting.seed_list([0, 2, 5]) == "seeds 0, 2, 5"
    assert formatting.plural(1, "model") == "1 model" and formatting.plural(6, "model") == "6 models"
