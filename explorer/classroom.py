"""Class mode: a lecturer opens a class, students join with a short code (no accounts), the lecturer asks a
question, each student answers once, and the lecturer reveals what the page's figure measured.

Everything lives in the store (`explorer.store`), so every replica of a deployment sees the same class.
Whatever people type is bounded here and checked before it reaches the database; a refused input raises
`ClassError`, whose `reason` names a message in `content/<lang>/class.md`. Nothing here renders anything: the
page shows typed text as plain text, never as markup.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import math
import secrets
import time
from dataclasses import dataclass

import sqlalchemy as sa

from explorer import learning_path
from explorer.store import db
from explorer.store.schema import ANSWERS, CLASSES, QUESTIONS, STUDENTS

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off a projector without mistakes
CODE_LENGTH = 6
CLASS_HOURS = 12  # a class can be joined and answered this long after it started
MAX_STUDENTS = 400  # per class
MAX_QUESTIONS = 60  # per class
MAX_LIVE_CLASSES = 200  # started in the last CLASS_HOURS, across the deployment
PROMPT_CHARS = 200
UNIT_CHARS = 20
CHOICE_CHARS = 60
MAX_CHOICES = 6
NUMBER_LIMIT = 1e9  # a numeric answer's absolute value


class ClassError(ValueError):
    """A refused request; `reason` is the message's section name and `params` fill its placeholders."""

    def __init__(self, reason: str, **params: object) -> None:
        super().__init__(reason)
        self.reason = reason
        self.params = params


@dataclass(frozen=True)
class Room:
    id: int
    code: str
    created_at: float


@dataclass(frozen=True)
class Question:
    id: int
    kind: str  # "step", "choice" or "number"
    step: int | None
    prompt: str
    choices: tuple[str, ...]
    unit: str
    correct: int | None
    value: float | None
    revealed: bool


@dataclass(frozen=True)
class Tally:
    answers: int
    counts: tuple[int, ...]  # per choice (choice questions)
    numbers: tuple[float, ...]  # every numeric answer, sorted (number questions)


def _now() -> float:
    return time.time()


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def _typed(text: object) -> str:
    """Typed text as one line of plain text: runs of white space become one space, and angle brackets become
    look-alikes, so no figure, page or spreadsheet downstream can take any of it for markup."""
    return " ".join(str(text).split()).replace("<", "\ufe64").replace(">", "\ufe65")


def lettered(choices: list[str] | tuple[str, ...]) -> list[str]:
    """"A. ...", "B. ...": how every view names the choices, so a class can call them out by letter."""
    return [f"{chr(65 + i)}. {choice}" for i, choice in enumerate(choices)]


def normalize_code(code: str) -> str:
    """What a student typed, as a code: upper case, no spaces or dashes."""
    return "".join(ch for ch in str(code).upper() if ch.isascii() and ch.isalnum())[:CODE_LENGTH + 2]


def start() -> tuple[Room, str]:
    """Start a class: (the room, the lecturer's secret token). Refused when too many classes are live."""
    now = _now()
    with db.engine().begin() as conn:
        live = conn.execute(sa.select(sa.func.count()).select_from(CLASSES)
                            .where(CLASSES.c.created_at > now - CLASS_HOURS * 3600)).scalar_one()
        if live >= MAX_LIVE_CLASSES:
            raise ClassError("too-many-classes", limit=MAX_LIVE_CLASSES, hours=CLASS_HOURS)
    token = secrets.token_urlsafe(18)
    for _ in range(20):  # a clash among 31^6 codes is rare; try another
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        try:
            with db.engine().begin() as conn:
                room_id = conn.execute(sa.insert(CLASSES).values(code=code, host_hash=_hash(token), created_at=now)
                                       .returning(CLASSES.c.id)).scalar_one()
            return Room(room_id, code, now), token
        except sa.exc.IntegrityError:
            continue
    raise ClassError("too-many-classes", limit=MAX_LIVE_CLASSES, hours=CLASS_HOURS)


def find(code: str) -> Room | None:
    """The live class with this code, or None (unknown, or older than CLASS_HOURS)."""
    code = normalize_code(code)
    if len(code) != CODE_LENGTH:
        return None
    with db.reads() as conn:
        row = conn.execute(sa.select(CLASSES.c.id, CLASSES.c.code, CLASSES.c.created_at)
                           .where(CLASSES.c.code == code)).first()
    if row is None or row.created_at < _now() - CLASS_HOURS * 3600:
        return None
    return Room(row.id, row.code, row.created_at)


def is_host(room: Room, token: str) -> bool:
    """Whether `token` is the lecturer's (compared in constant time)."""
    with db.reads() as conn:
        stored = conn.execute(sa.select(CLASSES.c.host_hash).where(CLASSES.c.id == room.id)).scalar_one_or_none()
    return bool(stored and token) and hmac.compare_digest(stored, _hash(str(token)))


def join(room: Room, token: str | None = None) -> str:
    """Join `room` as a student; returns the student's token (the same one again if `token` already joined)."""
    if token and _is_token(token) and _joined(room, token):
        return token
    with db.engine().begin() as conn:
        joined = conn.execute(sa.select(sa.func.count()).select_from(STUDENTS)
                              .where(STUDENTS.c.class_id == room.id)).scalar_one()
        if joined >= MAX_STUDENTS:
            raise ClassError("class-full", limit=MAX_STUDENTS)
        token = secrets.token_hex(12)
        conn.execute(sa.insert(STUDENTS).values(class_id=room.id, token=token, joined_at=_now()))
    return token


def _is_token(token: object) -> bool:
    """A student token as `join` makes them (24 hex digits): anything else from a URL is not looked up."""
    return isinstance(token, str) and len(token) == 24 and all(ch in "0123456789abcdef" for ch in token)


def _joined(room: Room, token: str) -> bool:
    if not _is_token(token):
        return False
    with db.reads() as conn:
        return conn.execute(sa.select(STUDENTS.c.id).where(STUDENTS.c.class_id == room.id,
                                                           STUDENTS.c.token == token)).first() is not None


def joined(room: Room) -> int:
    """How many devices have joined."""
    with db.reads() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(STUDENTS)
                            .where(STUDENTS.c.class_id == room.id)).scalar_one()


def ask_step(room: Room, number: int) -> Question:
    """Ask the learning path's question `number`: its wording comes from the path's content in each viewer's
    language, its supported choice from the figure that answers it."""
    if not 1 <= int(number) <= len(learning_path.STEPS):
        raise ClassError("no-such-step", total=len(learning_path.STEPS))
    step = learning_path.step(int(number))
    return _ask(room, kind="step", step=step.number, choices=[""] * learning_path.CHOICES, correct=step.answer)


def ask_own(room: Room, prompt: str, choices: list[str] | None = None, unit: str = "") -> Question:
    """Ask the lecturer's own question: multiple choice when `choices` has 2 or more, else a number."""
    prompt = _typed(prompt)
    if not prompt:
        raise ClassError("empty-prompt")
    if len(prompt) > PROMPT_CHARS:
        raise ClassError("long-prompt", limit=PROMPT_CHARS)
    choices = [_typed(c) for c in (choices or []) if str(c).strip()]
    if len(choices) == 1 or len(choices) > MAX_CHOICES:
        raise ClassError("choice-count", most=MAX_CHOICES)
    if any(len(c) > CHOICE_CHARS for c in choices):
        raise ClassError("long-choice", limit=CHOICE_CHARS)
    unit = _typed(unit)
    if len(unit) > UNIT_CHARS:
        raise ClassError("long-unit", limit=UNIT_CHARS)
    return _ask(room, kind="choice" if choices else "number", prompt=prompt, choices=choices, unit=unit)


def _ask(room: Room, **fields: object) -> Question:
    fields["choices"] = json.dumps(fields.get("choices", []), ensure_ascii=False)
    with db.engine().begin() as conn:
        asked = conn.execute(sa.select(sa.func.count()).select_from(QUESTIONS)
                             .where(QUESTIONS.c.class_id == room.id)).scalar_one()
        if asked >= MAX_QUESTIONS:
            raise ClassError("too-many-questions", limit=MAX_QUESTIONS)
        question_id = conn.execute(sa.insert(QUESTIONS).values(class_id=room.id, opened_at=_now(), **{
            "prompt": "", "unit": "", **fields}).returning(QUESTIONS.c.id)).scalar_one()
        conn.execute(sa.update(CLASSES).where(CLASSES.c.id == room.id).values(question_id=question_id))
    return question(room, question_id)


def _question(row) -> Question:
    return Question(row.id, row.kind, row.step, row.prompt, tuple(json.loads(row.choices)), row.unit, row.correct,
                    row.value, row.revealed_at is not None)


def question(room: Room, question_id: int) -> Question:
    with db.reads() as conn:
        row = conn.execute(sa.select(QUESTIONS).where(QUESTIONS.c.id == question_id,
                                                      QUESTIONS.c.class_id == room.id)).first()
    if row is None:
        raise ClassError("no-question")
    return _question(row)


def current(room: Room) -> Question | None:
    """The question the class sees now, if the lecturer has asked one (one query: every device polls this)."""
    with db.reads() as conn:
        row = conn.execute(sa.select(QUESTIONS).join(CLASSES, CLASSES.c.question_id == QUESTIONS.c.id)
                           .where(CLASSES.c.id == room.id)).first()
    return None if row is None else _question(row)


def answer(room: Room, of: Question, student: str, value: float | int) -> None:
    """Record `student`'s one answer to `of`: a choice index or a number. Refused after the reveal, for a
    second answer, for a device that has not joined, or for a value out of range."""
    if not _joined(room, student):
        raise ClassError("not-joined")
    if of.revealed:
        raise ClassError("closed")
    choice, number = None, None
    if of.kind == "number":
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ClassError("not-a-number") from None
        if not math.isfinite(number) or abs(number) > NUMBER_LIMIT:
            raise ClassError("out-of-range", limit=f"{NUMBER_LIMIT:.0e}")
    else:
        if not isinstance(value, int) or not 0 <= value < len(of.choices):
            raise ClassError("no-such-choice")
        choice = value
    try:
        with db.engine().begin() as conn:
            conn.execute(sa.insert(ANSWERS).values(question_id=of.id, student=student, choice=choice,
                                                   number=number, answered_at=_now()))
    except sa.exc.IntegrityError:
        raise ClassError("answered") from None


def answered(of: Question, student: str) -> bool:
    with db.reads() as conn:
        return conn.execute(sa.select(ANSWERS.c.id).where(ANSWERS.c.question_id == of.id,
                                                          ANSWERS.c.student == student)).first() is not None


def tally(of: Question) -> Tally:
    """The answers so far: counts per choice, or the sorted numbers."""
    with db.reads() as conn:
        rows = conn.execute(sa.select(ANSWERS.c.choice, ANSWERS.c.number)
                            .where(ANSWERS.c.question_id == of.id)).all()
    counts = [0] * len(of.choices)
    for row in rows:
        if row.choice is not None:
            counts[row.choice] += 1
    numbers = sorted(row.number for row in rows if row.number is not None)
    return Tally(len(rows), tuple(counts), tuple(numbers))


def reveal(room: Room, of: Question, value: float | None = None, correct: int | None = None) -> Question:
    """Close `of` and show the answer: the figure's measured `value` (number questions) or the supported
    choice (`correct`; a learning-path step already knows it)."""
    if value is not None and (not math.isfinite(float(value)) or abs(float(value)) > NUMBER_LIMIT):
        raise ClassError("out-of-range", limit=f"{NUMBER_LIMIT:.0e}")
    if correct is not None and not 0 <= int(correct) < len(of.choices):
        raise ClassError("no-such-choice")
    updates: dict[str, object] = {"revealed_at": _now()}
    if value is not None:
        updates["value"] = float(value)
    if correct is not None and of.kind != "step":
        updates["correct"] = int(correct)
    with db.engine().begin() as conn:
        conn.execute(sa.update(QUESTIONS).where(QUESTIONS.c.id == of.id, QUESTIONS.c.class_id == room.id)
                     .values(**updates))
    return question(room, of.id)


CSV_COLUMNS = ("question", "kind", "step", "prompt", "student", "choice", "choice_text", "number", "seconds_after_asked")


def _cell(text: str) -> str:
    """Typed text as a CSV cell a spreadsheet will not run as a formula."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def answers_csv(room: Room) -> str:
    """Every answer of the class, one row each, in the order the questions were asked. Students appear under a
    number per class (1, 2, ...), never under their device token."""
    with db.reads() as conn:
        rows = conn.execute(
            sa.select(QUESTIONS.c.id, QUESTIONS.c.kind, QUESTIONS.c.step, QUESTIONS.c.prompt, QUESTIONS.c.choices,
                      QUESTIONS.c.opened_at, ANSWERS.c.student, ANSWERS.c.choice, ANSWERS.c.number,
                      ANSWERS.c.answered_at)
            .join(ANSWERS, ANSWERS.c.question_id == QUESTIONS.c.id)
            .where(QUESTIONS.c.class_id == room.id).order_by(QUESTIONS.c.id, ANSWERS.c.id)).all()
        order = [r.token for r in conn.execute(sa.select(STUDENTS.c.token).where(STUDENTS.c.class_id == room.id)
                                               .order_by(STUDENTS.c.id))]
    number_of = {token: i + 1 for i, token in enumerate(order)}
    asked = {qid: i + 1 for i, qid in enumerate(dict.fromkeys(r.id for r in rows))}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for r in rows:
        choices = json.loads(r.choices)
        if r.kind == "step":
            choices = learning_path.choices(r.step)
        text = choices[r.choice] if r.choice is not None else ""
        writer.writerow([asked[r.id], r.kind, r.step or "", _cell(r.prompt), number_of.get(r.student, ""),
                         "" if r.choice is None else r.choice, _cell(text), "" if r.number is None else r.number,
                         f"{r.answered_at - r.opened_at:.1f}"])
    return out.getvalue()
