import json

from explorer import results


def test_cached_computes_once_then_reads_from_disk():
    calls = []
    config = {"a": 1, "nested": [1, 2]}
    compute = lambda: calls.append(1) or {"value": 42}
    assert results.cached("unit", config, compute) == {"value": 42}
    assert results.cached("unit", config, compute) == {"value": 42}
    assert len(calls) == 1


def test_a_different_config_is_a_different_entry():
    assert results.result_key("unit", {"a": 1}) != results.result_key("unit", {"a": 2})


def test_a_corrupt_file_is_detected_and_recomputed():
    config = {"corrupt": True}
    results.save("unit", config, {"value": 1})
    path = results._path("unit", config)
    path.write_text('{"kind": "unit", "result": {"val')  # a crash mid-write would look like this
    assert results.load("unit", config) is None
    assert not path.exists()
    assert results.cached("unit", config, lambda: {"value": 2}) == {"value": 2}
    assert json.loads(path.read_text())["result"] == {"value": 2}


def test_atomic_write_leaves_no_temporary_files():
    results.save("unit", {"clean": 1}, {"v": 1})
    leftovers = [p for p in results.cache_dir().rglob("*.tmp")]
    assert leftovers == []
