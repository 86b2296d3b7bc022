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


def test_a_result_computed_by_one_process_is_read_by_another(tmp_path):
    """Replicas share the cache folder: the second process finds the first one's result without computing."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    script = ("import sys; from explorer import results; "
              "print(results.cached('shared', {'x': 1}, lambda: {'by': sys.argv[1]})['by'])")
    env = {**os.environ, "EXPLORER_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", script, "first"], cwd=ROOT, env=env, capture_output=True, text=True)
    second = subprocess.run([sys.executable, "-c", script, "second"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert (first.stdout.strip(), second.stdout.strip()) == ("first", "first")


def test_a_record_without_its_shape_is_a_miss_and_is_removed():
    shape = {"loss": float, "history": [{"step": int}]}
    for bad in ([1, 2], {"loss": 1.0, "history": "many"}, {"history": []}, {"loss": "x", "history": []},
                {"loss": 1.0, "history": [{"step": 1}] * 10_001}):
        path = results.save("shaped", {"case": repr(bad)[:40]}, bad)
        record, problem = results.inspect("shaped", {"case": repr(bad)[:40]}, shape)
        assert record is None and problem and path.name in problem and not path.exists(), bad
    good = {"loss": 1, "history": [{"step": 3}], "extra": None}  # an int is a number; more keys are allowed
    results.save("shaped", {"case": "good"}, good)
    assert results.cached("shaped", {"case": "good"}, lambda: {"never": 1}, shape) == good


def test_cache_files_are_readable_by_the_group(tmp_path, monkeypatch):
    """A shared volume: replicas running as other users of one group read what any of them wrote."""
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path))
    path = results.save("perm", {"a": 1}, {"x": 1})
    assert path.stat().st_mode & 0o777 == 0o666 & ~results._UMASK
    assert path.stat().st_mode & 0o040  # with the usual umask 022: rw-r--r--
