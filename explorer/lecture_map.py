"""The lecture's argument as data: which page covers which link of the chain, and which slides.

The router builds the navigation from this list and the home page draws the chain from it. A page is
listed only when its file exists, so the app never shows a placeholder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Stage:
    key: str
    title: str
    slides: str
    claim: str  # the lecture's claim at this link, in our words


@dataclass(frozen=True)
class PageInfo:
    slug: str  # URL path
    title: str
    slides: str
    stage: str  # Stage.key
    file: str  # relative to the project root
    question: str  # what the student finds out there

    @property
    def exists(self) -> bool:
        return (ROOT / self.file).is_file()


STAGES = (
    Stage("force", "Dominant force", "2-7",
          "Compute per dollar has grown about 10x every 5 years; the lecture reads each change below as a response."),
    Stage("bias", "Inductive bias", "8-16", "Structure helps at low compute but can cap scaling; the best structure moves."),
    Stage("architecture", "Architecture", "17-63",
          "Encoder-decoder carries extra structure; four steps remove most of it, and what is left apart from "
          "decoder-only is how attention normalises over input and target."),
    Stage("cost", "Serving cost", "64-66", "Bidirectional input re-encodes every chat turn; causal attention reuses the cache."),
    Stage("audit", "Your own audit", "67", "For each structure: what it solved, when it becomes a ceiling, how to test it."),
)

PAGES = (
    PageInfo("home", "The argument", "1-3, 16, 67", "home", "pages/home.py",
             "How the pages fit the lecture's chain of reasoning."),
    PageInfo("method", "Method: the falling pen", "2-6", "force", "pages/method.py",
             "When may you ignore a force, and how far ahead does a simple model stay right?"),
    PageInfo("compute", "Compute per dollar", "4, 6, 7", "force", "pages/compute_per_dollar.py",
             "How fast has compute per dollar grown, and how sure is that rate?"),
    PageInfo("bitter-lesson", "The Bitter Lesson", "8-9", "bias", "pages/bitter_lesson.py",
             "Does a method built on our beliefs lose to a general one given more data and compute?"),
    PageInfo("inductive-bias", "Inductive-bias crossover", "10, 13-15", "bias", "pages/inductive_bias.py",
             "Where does less structure overtake more, measured on real models?"),
    PageInfo("attention", "Attention masks", "17-37, 50, 62-63", "architecture", "pages/attention.py",
             "Who may read whom in each architecture, and what does a trained model read?"),
    PageInfo("four-steps", "Four steps to decoder-only", "40-55", "architecture", "pages/four_steps.py",
             "Which differences remain after each step, in parameters and in logits?"),
    PageInfo("lengths", "Length asymmetry", "56-58", "architecture", "pages/length_asymmetry.py",
             "Who processes how many tokens when inputs are long and targets short?"),
    PageInfo("depth", "Depth and cross-attention", "59-63", "architecture", "pages/depth.py",
             "Does reading only the final encoder layer hurt as networks deepen?"),
    PageInfo("cache", "Cache reuse in chat", "64-66", "cost", "pages/cache_reuse.py",
             "What does each chat turn recompute, bidirectional vs causal, and what does it cost?"),
    PageInfo("audit", "Bias-audit workbook", "67", "audit", "pages/bias_audit.py",
             "Audit your own model's structures the way the lecture audits the Transformer."),
    PageInfo("path", "Learning path", "1-67", "home", "pages/path.py",
             "Ten questions from the course notes: predict, then let the live figures answer."),
)


def slides_label(slides: str) -> str:
    """'slide 67' or 'slides 4, 6, 7': the right noun for a slide reference."""
    return f"{'slides' if any(sep in slides for sep in ',-') else 'slide'} {slides}"


def available_pages() -> list[PageInfo]:
    """Pages whose file exists, in the order of the argument."""
    return [p for p in PAGES if p.exists]


def page(slug: str) -> PageInfo:
    return next(p for p in PAGES if p.slug == slug)


def pages_in_stage(stage: str) -> list[PageInfo]:
    return [p for p in available_pages() if p.stage == stage]
