"""The lecture's argument as data: which page covers which link of the chain, and which slides.

The router builds the navigation from this list and the home page draws the chain from it. A page is
listed only when its file exists, so the app never shows a placeholder. Titles, questions and claims are
text in the run's language (content/<lang>/map.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from explorer import content

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Stage:
    key: str
    slides: str

    @property
    def title(self) -> str:
        return content.text("map", f"stage-{self.key}-title")

    @property
    def claim(self) -> str:
        """The lecture's claim at this link, in our words."""
        return content.text("map", f"stage-{self.key}-claim")


@dataclass(frozen=True)
class PageInfo:
    slug: str  # URL path
    slides: str
    stage: str  # Stage.key
    file: str  # relative to the project root
    slide_figure: bool = True  # opens on a figure of the lecture; class mode opens on a form until a question is asked

    @property
    def title(self) -> str:
        return content.text("map", f"page-{self.slug}-title")

    @property
    def question(self) -> str:
        """What the student finds out there."""
        return content.text("map", f"page-{self.slug}-question")

    @property
    def exists(self) -> bool:
        return (ROOT / self.file).is_file()


STAGES = (
    Stage("force", "2-7"),
    Stage("bias", "8-16"),
    Stage("architecture", "17-63"),
    Stage("cost", "64-66"),
    Stage("audit", "67"),
)

PAGES = (
    PageInfo("home", "1-3, 16, 67", "home", "pages/home.py"),
    PageInfo("method", "2-6", "force", "pages/method.py"),
    PageInfo("compute", "4, 6, 7", "force", "pages/compute_per_dollar.py"),
    PageInfo("bitter-lesson", "8-9", "bias", "pages/bitter_lesson.py"),
    PageInfo("inductive-bias", "10, 13-15", "bias", "pages/inductive_bias.py"),
    PageInfo("attention", "17-37, 50, 62-63", "architecture", "pages/attention.py"),
    PageInfo("four-steps", "40-55", "architecture", "pages/four_steps.py"),
    PageInfo("lengths", "56-58", "architecture", "pages/length_asymmetry.py"),
    PageInfo("depth", "59-63", "architecture", "pages/depth.py"),
    PageInfo("cache", "64-66", "cost", "pages/cache_reuse.py"),
    PageInfo("audit", "67", "audit", "pages/bias_audit.py"),
    PageInfo("path", "1-67", "home", "pages/path.py"),
    PageInfo("class", "1-67", "home", "pages/classroom.py", slide_figure=False),
    PageInfo("glossary", "1-67", "home", "pages/glossary.py"),
)


def slides_label(slides: str) -> str:
    """'slide 67' or 'slides 4, 6, 7' (幻灯片 67): the right noun for a slide reference."""
    if any(sep in slides for sep in ",-"):
        return content.text("common", "slides", slides=slides)
    return content.text("common", "slide", slides=slides)


def available_pages() -> list[PageInfo]:
    """Pages whose file exists, in the order of the argument."""
    return [p for p in PAGES if p.exists]


def page(slug: str) -> PageInfo:
    return next(p for p in PAGES if p.slug == slug)


def pages_in_stage(stage: str) -> list[PageInfo]:
    return [p for p in available_pages() if p.stage == stage]
