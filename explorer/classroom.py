"""Class mode: a lecturer opens a class, students join with a short code (no accounts), the lecturer asks a
question, each student answers once, and the reveal shows each device its own answer against the answer.

Everything lives in the store (`explorer.store`), so every replica of a deployment sees the same class.
Whatever people type is bounded here and checked before it reaches the database; a refused input raises
`ClassError`, whose `reason` names a message in `content/<lang>/class.md`. Nothing here renders anything: the
page shows typed text as plain text, never as markup.

Who may do what rests on two secrets that never travel in a URL: the lecturer's token and each device's token
(`ui.class_routes` sets them as HttpOnly cookies). Every bound (devices per class, questions per class, live
classes, starts and joins per address) is checked and written in one transaction that holds a lock: SQLite's
write lock (BEGIN IMMEDIATE, `explorer.store.db`) or PostgreSQL transaction-scoped advisory locks, so a burst
of concurrent requests cannot count past a bound.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import math
import os
import secrets
import time
from dataclasses import dataclass

import sqlalchemy as sa

from explorer import learning_path
from explorer.store import db, locks
from explorer.store.schema import ANSWERS, CLASSES, QUESTIONS, STUDENTS

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off a projector without mistakes
CODE_LENGTH = 6
CLASS_HOURS = 12  # a class can be joined and answered this long after it started
MAX_STUDENTS = 400  # devices per class
MAX_QUESTIONS = 60  # per class
MAX_LIVE_CLASSES = 200  # started in the last CLASS_HOURS, across the deployment
STARTS_PER_HOUR = 10  # classes one address may start in an hour
# devices one address may join in a minute; a lecture hall behind one NAT address may need more (docs/class-mode.md)
JOINS_PER_MINUTE = int(os.environ.get("EXPLORER_CLASS_JOINS_PER_MINUTE", "60"))
PROMPT_CHARS = 200
UNIT_CHARS = 20
CHOICE_CHARS = 60
EXPLANATION_CHARS = 500
MAX_CHOICES = 6
NUMBER_LIMIT = 1e9  # a numeric answer's absolute value
CLOSE_SHARE = 0.10  # a numeric guess within 10 % of the answer counts as matching it
LETTERS = "ABCDEF"


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
    correct: int | None  # the right choice (step, choice), None for a poll or a number
    value: float | None  # the right number (number questions), None for a poll
    revealed: bool
    poll: bool = False  # no right answer: the reveal shows how the class split, nothing more
    explanation: str = ""  # the lecturer's own; a path step's is in content/<lang>/path.md


@dataclass(frozen=True)
class Tally:
    answers: int
    counts: tuple[int, ...]  # per choice (choice questions)
    numbers: tuple[float, ...]  # every numeric answer, sorted (number questions)


@dataclass(frozen=True)
class Mine:
    """One device's answer: a choice index or a number."""

    choice: int | None
    number: float | None


def _now() -> float:
    return time.time()


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def address_key(address: str) -> str:
    """A client address as the store keeps it: a short hash, so no address is stored in the clear."""
    return _hash(f"class-address:{address}")[:16]


def _typed(text: object) -> str:
    """Typed text as one line of plain text: runs of white space become one space, and angle brackets become
    look-alikes, so no figure, page or spreadsheet downstream can take any of it for markup."""
    return " ".join(str(text).split()).replace("<", "\ufe64").replace(">", "\ufe65")


def letter(index: int) -> str:
    return LETTERS[index] if 0 <= index < len(LETTERS) else str(index)


def lettered(choices: list[str] | tuple[str, ...]) -> list[str]:
    """ "A. ...", "B. ...": how every view names the choices, so a class can call them out by letter."""
    return [f"{letter(i)}. {choice}" for i, choice in enumerate(choices)]


def normalize_code(code: str) -> str:
    """What a student typed, as a code: upper case, no spaces or dashes."""
    return "".join(ch for ch in str(code).upper() if ch.isascii() and ch.isalnum())[: CODE_LENGTH + 2]


def _lock(conn: sa.Connection, *names: str) -> None:
    """Serialize this transaction with every other that names the same locks, until it ends. On SQLite the
    transaction already holds the database's write lock (BEGIN IMMEDIATE); on PostgreSQL each name is a
    transaction-scoped advisory lock, always taken in the order given (callers name the wider lock first)."""
    if conn.dialect.name == "postgresql":
        for name in names:
            conn.execute(sa.select(sa.func.pg_advisory_xact_lock(locks.lock_id(name))))


def start(address: str = "") -> tuple[Room, str]:
    """Start a class: (the room, the lecturer's secret token). Refused when too many classes are live, or
    when `address` started STARTS_PER_HOUR classes in the last hour (the routes always name the address; a call
    without one, from a test or a script on the server, is not rate-limited)."""
    now, key = _now(), address_key(address)
    token = secrets.token_urlsafe(24)
    with db.engine().begin() as conn:
        _lock(conn, "class-starts")
        live = conn.execute(
            sa.select(sa.func.count()).select_from(CLASSES).where(CLASSES.c.created_at > now - CLASS_HOURS * 3600)
        ).scalar_one()
        if live >= MAX_LIVE_CLASSES:
            raise ClassError("too-many-classes", limit=MAX_LIVE_CLASSES, hours=CLASS_HOURS)
        mine = conn.execute(
            sa.select(sa.func.count())
            .select_from(CLASSES)
            .where(CLASSES.c.address == key, CLASSES.c.created_at > now - 3600)
        ).scalar_one()
        if address and mine >= STARTS_PER_HOUR:
            raise ClassError("start-rate", limit=STARTS_PER_HOUR)
        for _ in range(50):  # a clash among 31^6 codes is rare; try another
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if conn.execute(sa.select(CLASSES.c.id).where(CLASSES.c.code == code)).first() is None:
                break
        else:
            raise ClassError("too-many-classes", limit=MAX_LIVE_CLASSES, hours=CLASS_HOURS)
        room_id = conn.execute(
            sa.insert(CLASSES)
            .values(code=code, host_hash=_hash(token), created_at=now, address=key, joining=True)
            .returning(CLASSES.c.id)
        ).scalar_one()
    return Room(room_id, code, now), token


def find(code: str) -> Room | None:
    """The live class with this code, or None (unknown, or older than CLASS_HOURS)."""
    code = normalize_code(code)
    if len(code) != CODE_LENGTH:
        return None
    with db.reads() as conn:
        row = conn.execute(
            sa.select(CLASSES.c.id, CLASSES.c.code, CLASSES.c.created_at).where(CLASSES.c.code == code)
        ).first()
    if row is None or row.created_at < _now() - CLASS_HOURS * 3600:
        return None
    return Room(row.id, row.code, row.created_at)


def is_host(room: Room, token: str | None) -> bool:
    """Whether `token` is the lecturer's (compared in constant time)."""
    if not token or not isinstance(token, str) or len(token) > 64:
        return False
    with db.reads() as conn:
        stored = conn.execute(sa.select(CLASSES.c.host_hash).where(CLASSES.c.id == room.id)).scalar_one_or_none()
    return bool(stored) and hmac.compare_digest(stored, _hash(token))


def joining_open(room: Room) -> bool:
    with db.reads() as conn:
        return bool(conn.execute(sa.select(CLASSES.c.joining).where(CLASSES.c.id == room.id)).scalar_one())


def set_joining(room: Room, open_: bool) -> None:
    """Open or close joining (the lecturer's switch): a closed class refuses new devices, keeps the joined."""
    with db.engine().begin() as conn:
        conn.execute(sa.update(CLASSES).where(CLASSES.c.id == room.id).values(joining=bool(open_)))


def join(room: Room, address: str = "", token: str | None = None) -> str:
    """Join `room` as a student from `address`; returns the device's token (the same one again when `token`
    already joined). Refused when the class is full or closed to joins, or when `address` joined
    JOINS_PER_MINUTE devices in the last minute."""
    if is_student(room, token):
        return str(token)
    now, key = _now(), address_key(address)
    with db.engine().begin() as conn:
        _lock(conn, f"class-joins:{key}", f"class:{room.id}")
        recent = conn.execute(
            sa.select(sa.func.count())
            .select_from(STUDENTS)
            .where(STUDENTS.c.address == key, STUDENTS.c.joined_at > now - 60)
        ).scalar_one()
        if address and recent >= JOINS_PER_MINUTE:
            raise ClassError("join-rate", limit=JOINS_PER_MINUTE)
        if not conn.execute(sa.select(CLASSES.c.joining).where(CLASSES.c.id == room.id)).scalar_one():
            raise ClassError("joining-closed")
        joined_now = conn.execute(
            sa.select(sa.func.count()).select_from(STUDENTS).where(STUDENTS.c.class_id == room.id)
        ).scalar_one()
        if joined_now >= MAX_STUDENTS:
            raise ClassError("class-full", limit=MAX_STUDENTS)
        token = secrets.token_hex(12)
        conn.execute(sa.insert(STUDENTS).values(class_id=room.id, token=token, joined_at=now, address=key))
    return token


def _is_token(token: object) -> bool:
    """A student token as `join` makes them (24 hex digits): anything else is not looked up."""
    return isinstance(token, str) and len(token) == 24 and all(ch in "0123456789abcdef" for ch in token)


def is_student(room: Room, token: str | None) -> bool:
    """Whether `token` names a device that joined `room`."""
    if not _is_token(token):
        return False
    with db.reads() as conn:
        return (
            conn.execute(
                sa.select(STUDENTS.c.id).where(STUDENTS.c.class_id == room.id, STUDENTS.c.token == token)
            ).first()
            is not None
        )


def joined(room: Room) -> int:
    """How many devices have joined."""
    with db.reads() as conn:
        return conn.execute(
            sa.select(sa.func.count()).select_from(STUDENTS).where(STUDENTS.c.class_id == room.id)
        ).scalar_one()


def ask_step(room: Room, number: int) -> Question:
    """Ask the learning path's question `number`: its wording comes from the path's content in each viewer's
    language, its supported choice from the figure that answers it."""
    if not 1 <= int(number) <= len(learning_path.STEPS):
        raise ClassError("no-such-step", total=len(learning_path.STEPS))
    step = learning_path.step(int(number))
    return _ask(room, kind="step", step=step.number, choices=[""] * learning_path.CHOICES, correct=step.answer)


def ask_own(
    room: Room,
    prompt: str,
    choices: list[str] | None = None,
    unit: str = "",
    answer: str = "",
    poll: bool = False,
    explanation: str = "",
) -> Question:
    """Ask the lecturer's own question: multiple choice when `choices` has 2 or more, else a number. `answer`
    is the right one (a letter, or a number), required unless the question is a `poll`."""
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
    unit, explanation = _typed(unit), _typed(explanation)
    if len(unit) > UNIT_CHARS:
        raise ClassError("long-unit", limit=UNIT_CHARS)
    if len(explanation) > EXPLANATION_CHARS:
        raise ClassError("long-explanation", limit=EXPLANATION_CHARS)
    correct, value = (None, None) if poll else _right_answer(str(answer or ""), choices)
    return _ask(
        room,
        kind="choice" if choices else "number",
        prompt=prompt,
        choices=choices,
        unit=unit,
        correct=correct,
        value=value,
        poll=bool(poll),
        explanation=explanation,
    )


def _right_answer(answer: str, choices: list[str]) -> tuple[int | None, float | None]:
    """(choice index, number) from what the lecturer typed as the right answer."""
    answer = answer.strip()
    if not answer:
        raise ClassError("no-right-answer")
    if choices:
        index = LETTERS.find(answer.upper()[:1]) if len(answer) <= 2 else -1
        if not 0 <= index < len(choices):
            raise ClassError("bad-right-choice", last=letter(len(choices) - 1))
        return index, None
    number = _number(answer)
    return None, number


def _number(value: object) -> float:
    try:
        number = float(str(value).replace(",", "").strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError, OverflowError):
        raise ClassError("not-a-number") from None
    if not math.isfinite(number) or abs(number) > NUMBER_LIMIT:
        raise ClassError("out-of-range", limit=f"{NUMBER_LIMIT:.0e}")
    return number


def _ask(room: Room, **fields: object) -> Question:
    """Ask once: the same question pressed again while it is still open (not revealed) is the one already asked,
    so a double press or a form sent twice does not split the class's answers over two copies."""
    fields["choices"] = json.dumps(fields.get("choices", []), ensure_ascii=False)
    with db.engine().begin() as conn:
        _lock(conn, f"class:{room.id}")
        open_now = conn.execute(
            sa.select(QUESTIONS)
            .join(CLASSES, CLASSES.c.question_id == QUESTIONS.c.id)
            .where(CLASSES.c.id == room.id, QUESTIONS.c.revealed_at.is_(None))
        ).first()
        defaults = {
            "step": None,
            "prompt": "",
            "unit": "",
            "correct": None,
            "value": None,
            "poll": False,
            "explanation": "",
        }
        if open_now is not None and all(getattr(open_now, k) == v for k, v in {**defaults, **fields}.items()):
            return _question(open_now)
        asked = conn.execute(
            sa.select(sa.func.count()).select_from(QUESTIONS).where(QUESTIONS.c.class_id == room.id)
        ).scalar_one()
        if asked >= MAX_QUESTIONS:
            raise ClassError("too-many-questions", limit=MAX_QUESTIONS)
        question_id = conn.execute(
            sa.insert(QUESTIONS)
            .values(
                class_id=room.id,
                opened_at=_now(),
                **{"prompt": "", "unit": "", "poll": False, "explanation": "", **fields},
            )
            .returning(QUESTIONS.c.id)
        ).scalar_one()
        conn.execute(sa.update(CLASSES).where(CLASSES.c.id == room.id).values(question_id=question_id))
    return question(room, question_id)


def _question(row) -> Question:
    return Question(
        row.id,
        row.kind,
        row.step,
        row.prompt,
        tuple(json.loads(row.choices)),
        row.unit,
        row.correct,
        row.value,
        row.revealed_at is not None,
        bool(row.poll),
        row.explanation or "",
    )


def question(room: Room, question_id: int) -> Question:
    with db.reads() as conn:
        row = conn.execute(
            sa.select(QUESTIONS).where(QUESTIONS.c.id == question_id, QUESTIONS.c.class_id == room.id)
        ).first()
    if row is None:
        raise ClassError("no-question")
    return _question(row)


def current(room: Room) -> Question | None:
    """The question the class sees now, if the lecturer has asked one (one query: every device polls this)."""
    with db.reads() as conn:
        row = conn.execute(
            sa.select(QUESTIONS).join(CLASSES, CLASSES.c.question_id == QUESTIONS.c.id).where(CLASSES.c.id == room.id)
        ).first()
    return None if row is None else _question(row)


def answer(room: Room, of: Question, student: str, value: float | int | str) -> None:
    """Record `student`'s one answer to `of`: a choice index or a number. Refused after the reveal, for a
    second answer, for a device that has not joined, or for a value out of range."""
    if not is_student(room, student):
        raise ClassError("not-joined")
    if of.revealed:
        raise ClassError("closed")
    choice, number = None, None
    if of.kind == "number":
        number = _number(value)
    else:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < len(of.choices):
            raise ClassError("no-such-choice")
        choice = value
    try:
        with db.engine().begin() as conn:
            conn.execute(
                sa.insert(ANSWERS).values(
                    question_id=of.id, student=student, choice=choice, number=number, answered_at=_now()
                )
            )
    except sa.exc.IntegrityError:
        raise ClassError("answered") from None


def mine(of: Question, student: str) -> Mine | None:
    """`student`'s answer to `of`, or None."""
    with db.reads() as conn:
        row = conn.execute(
            sa.select(ANSWERS.c.choice, ANSWERS.c.number).where(
                ANSWERS.c.question_id == of.id, ANSWERS.c.student == student
            )
        ).first()
    return None if row is None else Mine(row.choice, row.number)


def answered(of: Question, student: str) -> bool:
    return mine(of, student) is not None


def verdict(of: Question, answer_: Mine | None) -> str:
    """'poll' (no right answer), 'none' (no answer given), 'right' or 'wrong'; a number is right within
    CLOSE_SHARE of the answer."""
    if of.poll or (of.correct is None and of.value is None):
        return "poll"
    if answer_ is None:
        return "none"
    if of.kind == "number":
        close = abs(answer_.number - of.value) <= CLOSE_SHARE * max(abs(of.value), 1e-12)
        return "right" if close else "wrong"
    return "right" if answer_.choice == of.correct else "wrong"


def tally(of: Question) -> Tally:
    """The answers so far: counts per choice, or the sorted numbers."""
    with db.reads() as conn:
        rows = conn.execute(sa.select(ANSWERS.c.choice, ANSWERS.c.number).where(ANSWERS.c.question_id == of.id)).all()
    counts = [0] * len(of.choices)
    for row in rows:
        if row.choice is not None and 0 <= row.choice < len(counts):
            counts[row.choice] += 1
    numbers = sorted(row.number for row in rows if row.number is not None)
    return Tally(len(rows), tuple(counts), tuple(numbers))


def reveal(room: Room, of: Question) -> Question:
    """Close `of` to answers and show the answer it was asked with (nothing more for a poll)."""
    with db.engine().begin() as conn:
        conn.execute(
            sa.update(QUESTIONS)
            .where(QUESTIONS.c.id == of.id, QUESTIONS.c.class_id == room.id, QUESTIONS.c.revealed_at.is_(None))
            .values(revealed_at=_now())
        )
    return question(room, of.id)


CSV_COLUMNS = (
    "question",
    "kind",
    "step",
    "question_text",
    "student",
    "answer",
    "answer_text",
    "number",
    "right_answer",
    "matched",
    "seconds_after_asked",
)


def _cell(text: str) -> str:
    """Typed text as a CSV cell a spreadsheet will not run as a formula."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _right_text(of: Question) -> str:
    if of.poll or (of.correct is None and of.value is None):
        return "poll"
    return letter(of.correct) if of.correct is not None else f"{of.value:g}"


def answers_csv(room: Room) -> str:
    """Every answer of the class, one row each, in the order the questions were asked, with the question's
    text and the letters the screen shows (a path step in the language of the one who downloads). Students
    appear under a number per class (1, 2, ...), never under their device token."""
    with db.reads() as conn:
        questions = {
            row.id: _question(row)
            for row in conn.execute(
                sa.select(QUESTIONS).where(QUESTIONS.c.class_id == room.id).order_by(QUESTIONS.c.id)
            )
        }
        rows = conn.execute(
            sa.select(
                ANSWERS.c.question_id,
                ANSWERS.c.student,
                ANSWERS.c.choice,
                ANSWERS.c.number,
                ANSWERS.c.answered_at,
                QUESTIONS.c.opened_at,
            )
            .join(QUESTIONS, ANSWERS.c.question_id == QUESTIONS.c.id)
            .where(QUESTIONS.c.class_id == room.id)
            .order_by(ANSWERS.c.question_id, ANSWERS.c.id)
        ).all()
        order = [
            r.token
            for r in conn.execute(
                sa.select(STUDENTS.c.token).where(STUDENTS.c.class_id == room.id).order_by(STUDENTS.c.id)
            )
        ]
    number_of = {token: i + 1 for i, token in enumerate(order)}
    asked = {qid: i + 1 for i, qid in enumerate(questions)}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for r in rows:
        of = questions[r.question_id]
        text, choices = (
            (learning_path.prompt(of.step), learning_path.choices(of.step))
            if of.kind == "step"
            else (of.prompt, list(of.choices))
        )
        chosen = choices[r.choice] if r.choice is not None and 0 <= r.choice < len(choices) else ""
        result = verdict(of, Mine(r.choice, r.number))
        writer.writerow(
            [
                asked[of.id],
                of.kind,
                of.step or "",
                _cell(text),
                number_of.get(r.student, ""),
                "" if r.choice is None else letter(r.choice),
                _cell(chosen),
                "" if r.number is None else f"{r.number:g}",
                _right_text(of),
                {"right": "yes", "wrong": "no"}.get(result, ""),
                f"{r.answered_at - r.opened_at:.1f}",
            ]
        )
    return out.getvalue()
