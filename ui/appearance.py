"""Which of the four frames the page is seen in (page, phone, embed, projector): the browser says.

The server cannot know a viewport's size, and a figure drawn for 1100 px is wrong on a 390 px phone and on a
1920x1080 projector. A tiny script in the page (a Streamlit v2 component: no iframe, no network) reports
`innerWidth x innerHeight` once it differs from what the server last drew for, and the page reruns in that frame.
A desktop page reports nothing (its frame is the default), so most visits cost no extra rerun. `frame=WxH` in the
URL sets the frame by hand (a test, a benchmark, a lecturer's fixed projector size).
"""

from __future__ import annotations

import streamlit as st

from explorer.figures.frames import PAGE, PHONE_MAX_PX, Frame, frame_of, parse_frame
from ui import lecture

_KEY = "frame_probe"
_SEEN = "_frame_seen"  # the last size the browser reported, "WxH"

# Reports the viewport when it matters (`data.always`: an embed or a projector, whose figure fills it) or when the
# page is narrow (a phone); again after a resize that changes it by more than a few pixels. Fixed code, no user text.
_JS = """
export default function(component) {
  const { setStateValue, data } = component;
  const report = () => {
    const w = Math.round(window.innerWidth), h = Math.round(window.innerHeight);
    const size = `${w}x${h}`;
    const last = (data && data.seen) || "";
    const [lw, lh] = last ? last.split("x").map(Number) : [0, 0];
    const moved = Math.abs(w - lw) > 8 || Math.abs(h - lh) > 40 && (data && data.always);
    if (!moved) return;
    if (!last && !(data && data.always) && w >= data.phone) return;
    setStateValue("size", size);
  };
  report();
  if (!window.__explorerFrameResize) {
    let timer = null;
    window.__explorerFrameResize = () => {
      clearTimeout(timer);
      timer = setTimeout(window.__explorerFrameReport, 300);
    };
    window.addEventListener("resize", () => window.__explorerFrameResize());
  }
  window.__explorerFrameReport = report;
}
"""

_CSS = "<style>.st-key-frame_probe, [class*='st-key-frame_probe'] { display: none !important; }</style>"


_component = None


def probe() -> None:
    """Mount the viewport probe (once per run, from app.py): hidden, it only reports."""
    global _component
    if _component is None:
        _component = st.components.v2.component("explorer_frame_probe", js=_JS)
    st.html(_CSS)
    result = _component(
        key=_KEY,
        data={
            "seen": st.session_state.get(_SEEN, ""),
            "phone": PHONE_MAX_PX,
            "always": bool(st.context.is_embedded or lecture.presentation() or lecture.figure_mode()),
        },
        on_size_change=lambda: None,
        height=0,
    )
    size = getattr(result, "size", None)
    if isinstance(size, str) and parse_frame(size):
        st.session_state[_SEEN] = size


def browser_theme() -> str | None:
    """ "light" or "dark", as the browser reports the theme it shows (None outside a browser session)."""
    return getattr(getattr(st.context, "theme", None), "type", None)


def current_frame() -> Frame:
    """The frame this run draws for: `frame=WxH` from the URL, else the browser's last report, else the page (or
    the default projector or embed size when the URL says so and the browser has not reported yet)."""
    size = parse_frame(st.query_params.get("frame")) or parse_frame(st.session_state.get(_SEEN))
    width, height = size or (None, None)
    # a figure-mode link is a slide's picture wherever it is opened (and Streamlit keeps `embed` out of
    # st.query_params, so a page run on its own, as in tests, cannot see it)
    slide = bool(st.context.is_embedded) or lecture.figure_mode() is not None
    return frame_of(width, height, slide, lecture.presentation())


def is_page(frame: Frame) -> bool:
    return frame.kind == PAGE
