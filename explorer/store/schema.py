"""The store's tables, as SQLAlchemy Core: what the code queries. The migrations in `migrations/versions`
create them; a test checks that the migrated database and these tables agree."""

from __future__ import annotations

import sqlalchemy as sa

METADATA = sa.MetaData()

CLASSES = sa.Table(
    "classes",
    METADATA,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("code", sa.String(8), nullable=False, unique=True),  # what students type to join
    sa.Column("host_hash", sa.String(64), nullable=False),  # sha256 of the lecturer's secret link token
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("question_id", sa.Integer, nullable=True),  # the question students see now
    sa.Column("address", sa.String(16), nullable=True),  # a hash of the starter's address (starts per hour)
    sa.Column("joining", sa.Boolean, nullable=False, default=True),  # the lecturer can close joining
)

STUDENTS = sa.Table(
    "students",
    METADATA,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("class_id", sa.Integer, sa.ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
    sa.Column("token", sa.String(32), nullable=False),  # a random name for a device, no account
    sa.Column("joined_at", sa.Float, nullable=False),
    sa.Column("address", sa.String(16), nullable=True),  # a hash of the joiner's address (joins per minute)
    sa.UniqueConstraint("class_id", "token"),
    sa.Index("students_by_address", "address", "joined_at"),
)

QUESTIONS = sa.Table(
    "questions",
    METADATA,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("class_id", sa.Integer, sa.ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
    sa.Column("kind", sa.String(8), nullable=False),  # "step" (learning path), "choice" or "number"
    sa.Column("step", sa.Integer, nullable=True),  # the learning-path step, for kind "step"
    sa.Column("prompt", sa.String(300), nullable=False, default=""),  # the lecturer's own question
    sa.Column("choices", sa.Text, nullable=False, default="[]"),  # JSON list of strings
    sa.Column("unit", sa.String(24), nullable=False, default=""),
    sa.Column("correct", sa.Integer, nullable=True),  # the supported choice, once known
    sa.Column("value", sa.Float, nullable=True),  # the measured value, revealed
    sa.Column("opened_at", sa.Float, nullable=False),
    sa.Column("revealed_at", sa.Float, nullable=True),
    sa.Column("poll", sa.Boolean, nullable=False, default=False),  # a poll: no right answer to reveal
    sa.Column("explanation", sa.String(600), nullable=False, default=""),  # the lecturer's, shown at the reveal
)

ANSWERS = sa.Table(
    "answers",
    METADATA,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("question_id", sa.Integer, sa.ForeignKey("questions.id", ondelete="CASCADE"), nullable=False),
    sa.Column("student", sa.String(32), nullable=False),
    sa.Column("choice", sa.Integer, nullable=True),
    sa.Column("number", sa.Float, nullable=True),
    sa.Column("answered_at", sa.Float, nullable=False),
    sa.UniqueConstraint("question_id", "student"),  # one answer each: the database enforces it
    sa.Index("answers_by_question", "question_id"),
)

RESULTS = sa.Table(
    "results",
    METADATA,
    sa.Column("key", sa.String(24), primary_key=True),  # explorer.results.result_key: kind, config and code version
    sa.Column("kind", sa.String(64), nullable=False),
    sa.Column("record", sa.Text, nullable=False),  # JSON: {"kind", "config", "code", "result"}; never a pickle
    sa.Column("saved_at", sa.Float, nullable=False),
)
