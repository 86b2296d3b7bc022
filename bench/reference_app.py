"""The floor no page can beat: Streamlit with one small Plotly chart and nothing else (`bench.bench_browser`
times a new visitor's first chart here beside the app's pages, so the pages' numbers read against it)."""

import plotly.graph_objects as go
import streamlit as st

st.plotly_chart(go.Figure(go.Scatter(x=[1, 2, 3], y=[1, 3, 2])))
