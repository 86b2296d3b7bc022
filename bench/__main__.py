"""Run every benchmark module in bench/ in turn: `python -m bench` (or `make bench`)."""

import importlib
import pkgutil

import bench

for info in sorted(pkgutil.iter_modules(bench.__path__), key=lambda m: m.name):
    module = importlib.import_module(f"bench.{info.name}")
    if hasattr(module, "main"):
        print(f"\n== {info.name} ==")
        module.main()
