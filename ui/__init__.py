"""Streamlit helpers shared by the pages: URL-bound widgets, figure rendering, page frame.

Only pages import this package; the explorer library never does.
"""
