"""Cache reuse in multi-turn chat (slides 64-66): bidirectional re-encoding vs the causal KV cache."""

from __future__ import annotations

import streamlit as st

from explorer import i18n
from explorer.experiments import cache as exp
from explorer.experiments import cache_view as view
from explorer.experiments import chat_cache as chat_exp
from explorer.figures import cache as figs
from ui import layout, lecture, params, render
from ui.frame import header
from ui.sections import cache_reuse as sections
from ui.sections import ladder
from ui.sections.cache_reuse import figure
from ui.text import say, t

FIRST_SCREEN_HEIGHT = 600  # px: the two heatmaps and their key whole on a 1440x900 screen
HEATMAP, CHAT_FIGURE = "cache-reuse-heatmaps", "cache-chat"


@st.cache_resource(show_spinner=False)
def _load_chat_models() -> dict | None:
    """The two demo models, shared and read-only; None when one is missing or does not load (the page then
    shows the reuse pattern, which holds by construction, without the measured drift)."""
    try:
        return chat_exp.load_models()
    except (ValueError, OSError):
        return None


def _chat_models() -> dict | None:
    with st.spinner(t("loading-models")):
        return _load_chat_models()


@st.cache_data(show_spinner=False, max_entries=256)
def _chat(text: str, lang: str, _models: dict | None) -> tuple[chat_exp.Chat, dict]:
    """The typed chat, tokenised, and each turn's reuse and measured drift through the demo models (one shared
    pair, so not part of the key); ValueError when over a limit. Its notices are in `lang`."""
    chat = chat_exp.parse_chat(text)
    return chat, chat_exp.chat_reuse(chat, _models)


def _size_controls(more) -> tuple[int, int, int, int, int]:
    """n, m, turns, depth and the layer shown: the sizes view's controls and every section's sizes.
    `more` holds depth and layer (an expander beside the heatmaps; the same expander as the rest otherwise)."""
    n = params.select_slider(t("label-n"), "n", view.N_OPTIONS, 48)
    m = params.select_slider(t("label-m"), "m", view.M_OPTIONS, 8)
    turns = params.slider(t("label-turns"), "turns", 1, view.MAX_TURNS, 3)
    with more:
        depth = params.slider(t("label-depth"), "depth", 1, view.MAX_DEPTH, 2)
        if depth > 1:
            if st.session_state.get("layer", 1) > depth:  # depth went down: keep the shown layer inside it
                st.session_state["layer"] = depth
            layer = params.slider(t("label-layer"), "layer", 1, depth, min(2, depth))
        else:
            layer = 1
            st.caption(t("only-layer"))
    return n, m, turns, depth, layer


def _chat_view(figure_col, controls_col) -> None:
    """The first screen: slide 66's chat (or the student's) through the demo models, turn by turn."""
    with controls_col:
        text = params.text(
            t("label-chat", separator=chat_exp.TURN_SEPARATOR),
            "chat",
            chat_exp.DEFAULT_CHAT,
            max_chars=chat_exp.MAX_TEXT,
            help=t("help-chat", **view.chat_help()),
        )
        state = params.select_slider(
            t("label-state"), "chat_state", view.CHAT_STATES, view.CHAT_STATES[-2], format_func=view.state_label
        )
        shown = view.CHAT_STATES.index(state)
    with figure_col:
        try:
            chat, data = _chat(text, i18n.current(), _chat_models())
        except ValueError as err:
            st.warning(t("chat-refused", problem=err))
            return
        for note in chat.notices:
            st.caption(note)
        figure(CHAT_FIGURE, (text, shown), lambda: figs.chat_reuse(data, shown), t("chat-notice"))
        kind, values = view.chat_takeaway(data, shown)
        say(f"chat-takeaway-{kind}", **values)
        if data["models"] is None:
            st.info(t("no-demo-models"))
        elif (measured := view.measured_turns(data)) is not None:
            st.caption(t("chat-limit", limit=data["limit"], turns=measured))


header("cache")
say("lead")
figure_col, controls_col = layout.stage(figure_share=4)  # the chat and the heatmaps need the width
with controls_col:
    # a link to the heatmaps alone (figure mode) opens the view that holds them
    view_shown = (
        view.SIZES_VIEW
        if lecture.figure_mode() == HEATMAP
        else params.choice(
            t("label-view"),
            "view",
            [view.CHAT_VIEW, view.SIZES_VIEW],
            view.CHAT_VIEW,
            widget="radio",
            format_func=view.view_label,
        )
    )
if view_shown == view.CHAT_VIEW:
    _chat_view(figure_col, controls_col)
    with st.expander(t("sizes-expander")):
        n, m, turns, depth, layer = _size_controls(st.container())
else:
    with controls_col:
        n, m, turns, depth, layer = _size_controls(st.expander(t("more-expander")))
    with figure_col:
        pattern = render.built_once(("pattern", n, m, turns, layer), lambda: exp.reuse_pattern(n, m, turns, layer))
        figure(
            HEATMAP,
            (n, m, turns, layer),
            lambda: figs.reuse_heatmaps(pattern, height=FIRST_SCREEN_HEIGHT),
            t("heatmap-notice"),
        )
        say("takeaway", **view.takeaway(n, m, turns, pattern["counts"]))

layout.show_sections(
    {
        t("tab-why"): lambda: say("intro"),
        t("tab-cost"): lambda: sections.cost(n, m, turns, depth),
        t("tab-measured"): lambda: sections.measured(n, m, turns, depth),
        t("tab-drift"): lambda: sections.drift(n, m),
        t("tab-stale"): sections.stale,
        t("tab-scaling"): sections.bidirectional_at_scale,
        t("tab-ladder"): lambda: ladder.hold_at_scale("bidirectional"),
        t("tab-limits"): lambda: say("limits", **view.limits()),
    }
)
