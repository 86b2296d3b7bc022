import sqlalchemy as sa

from explorer import results
from explorer.store import db
from explorer.store.schema import RESULTS


def _plant(kind: str, config: dict, record: str) -> str:
    """Overwrite the stored record for (kind, config) with `record`, as a crash or an attacker might."""
    key = results.result_key(kind, config)
    with db.engine().begin() as conn:
        conn.execute(sa.update(RESULTS).where(RESULTS.c.key == key).values(record=record))
    return key


def _stored(key: str) -> bool:
    with db.reads() as conn:
        return conn.execute(sa.select(RESULTS.c.key).where(RESULTS.c.key == key)).first() is not None


def test_cached_computes_once_then_reads_from_the_store(store):
    calls = []
    config = {"a": 1, "nested": [1, 2]}

    def compute():
        calls.append(1)
        return {"value": 42}

    assert results.cached("unit", config, compute) == {"value": 42}
    assert results.cached("unit", config, compute) == {"value": 42}
    assert len(calls) == 1


def test_a_different_config_is_a_different_entry():
    assert results.result_key("unit", {"a": 1}) != results.result_key("unit", {"a": 2})


def test_a_corrupt_record_is_detected_and_recomputed(store):
    config = {"corrupt": True}
    results.save("unit", config, {"value": 1})
    key = _plant("unit", config, '{"kind": "unit", "result": {"val')  # a cut-off record would look like this
    record, problem = results.inspect("unit", config)
    assert record is None and problem.startswith(f"unit/{key} does not parse (Unterminated string")
    assert not _stored(key)
    assert results.cached("unit", config, lambda: {"value": 2}) == {"value": 2}
    assert results.load("unit", config) == {"value": 2}


def test_saving_the_same_key_again_replaces_the_record(store):
    results.save("unit", {"again": 1}, {"v": 1})
    results.save("unit", {"again": 1}, {"v": 2})
    assert results.load("unit", {"again": 1}) == {"v": 2}


def test_atomic_write_leaves_no_temporary_files(tmp_path):
    results.write_json_atomic(tmp_path / "out" / "record.json", {"v": 1})
    assert [p.name for p in tmp_path.rglob("*")] == ["out", "record.json"]


def test_a_result_computed_by_one_process_is_read_by_another(tmp_path):
    """Replicas share the store: the second process finds the first one's result without computing."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    script = (
        "import sys; from explorer import results; "
        "print(results.cached('shared', {'x': 1}, lambda: {'by': sys.argv[1]})['by'])"
    )
    env = {**os.environ, "EXPLORER_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", script, "first"], cwd=ROOT, env=env, capture_output=True, text=True)
    second = subprocess.run([sys.executable, "-c", script, "second"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert (first.stdout.strip(), second.stdout.strip()) == ("first", "first")


def test_a_record_without_its_shape_is_a_miss_and_is_removed():
    shape = {"loss": float, "history": [{"step": int}]}
    for bad in (
        [1, 2],
        {"loss": 1.0, "history": "many"},
        {"history": []},
        {"loss": "x", "history": []},
        {"loss": 1.0, "history": [{"step": 1}] * 10_001},
    ):
        key = results.save("shaped", {"case": repr(bad)[:40]}, bad)
        record, problem = results.inspect("shaped", {"case": repr(bad)[:40]}, shape)
        assert record is None and problem and key in problem and not _stored(key), bad
    good = {"loss": 1, "history": [{"step": 3}], "extra": None}  # an int is a number; more keys are allowed
    results.save("shaped", {"case": "good"}, good)
    assert results.cached("shaped", {"case": "good"}, lambda: {"never": 1}, shape) == good


def test_json_files_are_readable_by_the_group(tmp_path):
    """Shipped results and checkpoint sidecars on a shared volume: other users of one group read them."""
    path = tmp_path / "perm.json"
    results.write_json_atomic(path, {"x": 1})
    assert path.stat().st_mode & 0o777 == 0o666 & ~results._UMASK
    assert path.stat().st_mode & 0o040  # with the usual umask 022: rw-r--r--


def test_a_record_that_is_not_strict_json_is_a_miss_that_is_deleted_once(store):
    """NaN, a 5000-digit number, 100k brackets: each is a miss, the row is deleted, the next result replaces it."""
    for i, planted in enumerate(
        [
            '{"config": {"strict": %d}, "result": {"points": NaN}}',
            '{"config": {"strict": %d}, "result": {"n": ' + "9" * 5000 + "}}",
            "[" * 100_000,
        ]
    ):
        config = {"strict": i}
        results.save("unit", config, {"points": 1.0})
        key = _plant("unit", config, planted.replace("%d", str(i)) if "%d" in planted else planted)
        record, problem = results.inspect("unit", config, {"points": float})
        assert record is None and problem.startswith(f"unit/{key} does not parse") and not _stored(key)
        assert results.cached("unit", config, lambda: {"points": 2.0}, {"points": float}) == {"points": 2.0}


def test_an_over_long_record_is_deleted_without_being_read(store):
    config = {"long": True}
    results.save("unit", config, {"v": 1})
    key = _plant(
        "unit", config, '{"config": {"long": true}, "result": {"v": "' + "x" * results.MAX_RECORD_CHARS + '"}}'
    )
    record, problem = results.inspect("unit", config)
    assert record is None and "the limit is 4,000,000" in problem and not _stored(key)


def test_a_result_holding_nan_is_not_stored_so_it_is_never_shown_as_measured(store):
    key = results.save("unit", {"nan": 1}, {"gain": float("nan")})
    assert not _stored(key) and results.load("unit", {"nan": 1}) is None
