"""Transformer History Explorer: the library behind the app.

A plain Python package (no Streamlit): one configurable Transformer (`explorer.model`), masks, tasks,
a bounded trainer, cost formulas, experiments, figure builders and a CLI (`python -m explorer --help`).
"""

__version__ = "0.1.0"
