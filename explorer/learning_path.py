"""The learning path: the lecture notes' ten self-test questions, each answered by one of the app's live
figures. The wording of questions, choices and explanations is in `content/<lang>/path.md` (sections
`q<n>`, `q<n>-choices`, `q<n>-why`); this module holds what is not prose: which figure answers a question, which
slides it cites, and which choice the figure supports."""

from __future__ import annotations

from dataclasses import dataclass

from explorer import content


@dataclass(frozen=True)
class Step:
    number: int  # 1-10, the notes' order
    slides: str
    page: str  # the slug of the page whose figure answers it
    figure: str  # that figure's id (`figure=<id>` links show it alone)
    answer: int  # the index of the choice the figure supports
    query: str = ""  # settings the figure needs, as URL parameters


STEPS = (
    Step(1, "2-6", "method", "method-error", 2),
    Step(2, "4, 6, 7", "compute", "compute-trend", 0),
    Step(3, "10, 13-15", "inductive-bias", "crossover-curves", 1),
    Step(4, "17-37", "attention", "attention-masks", 2),
    # what still separates the models after step 4: each remaining difference put back into the exact model
    Step(5, "40-55", "four-steps", "four-steps-causes", 1, "step=4"),
    Step(6, "53-55", "four-steps", "shared-params-losses", 0),
    # a cause-and-effect question is answered by the measured test that changes the length ratio alone
    Step(7, "56-58", "lengths", "lengths-toy-gaps", 2),
    Step(8, "59-63", "depth", "depth-curves", 0, "depth=8"),
    Step(9, "64-66", "cache", "cache-chat", 1),
    Step(10, "3, 7, 67", "compute", "compute-backtest", 2, "train_end=2000"),
)
CHOICES = 3  # every question offers three choices


def step(number: int) -> Step:
    """Step `number` (1-based), clamped into the path."""
    return STEPS[min(max(number, 1), len(STEPS)) - 1]


def outcome(choice: int | None, of: Step) -> str:
    """'open' before a prediction, then 'right' or 'wrong'."""
    if choice is None:
        return "open"
    return "right" if choice == of.answer else "wrong"


def figure_query(of: Step) -> str:
    """The query that shows the step's figure alone on its page, embedded and without controls."""
    extra = f"&{of.query}" if of.query else ""
    return f"figure={of.figure}&embed=true&controls=hidden{extra}"


def prompt(number: int) -> str:
    """Question `number` in the run's language."""
    return content.text("path", f"q{number}")


def choices(number: int) -> list[str]:
    """Question `number`'s choices in the run's language (the `- ` lines of its `q<n>-choices` section)."""
    return [
        line[2:].strip() for line in content.text("path", f"q{number}-choices").splitlines() if line.startswith("- ")
    ]
