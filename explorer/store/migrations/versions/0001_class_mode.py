"""Class mode: classes, the students who joined, questions and one answer per student and question."""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "classes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("code", sa.String(8), nullable=False, unique=True),
        sa.Column("host_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("question_id", sa.Integer, nullable=True),
    )
    op.create_table(
        "students",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("class_id", sa.Integer, sa.ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
        sa.Column("token", sa.String(32), nullable=False),
        sa.Column("joined_at", sa.Float, nullable=False),
        sa.UniqueConstraint("class_id", "token"),
    )
    op.create_table(
        "questions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("class_id", sa.Integer, sa.ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("step", sa.Integer, nullable=True),
        sa.Column("prompt", sa.String(300), nullable=False),
        sa.Column("choices", sa.Text, nullable=False),
        sa.Column("unit", sa.String(24), nullable=False),
        sa.Column("correct", sa.Integer, nullable=True),
        sa.Column("value", sa.Float, nullable=True),
        sa.Column("opened_at", sa.Float, nullable=False),
        sa.Column("revealed_at", sa.Float, nullable=True),
    )
    op.create_table(
        "answers",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("question_id", sa.Integer, sa.ForeignKey("questions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("student", sa.String(32), nullable=False),
        sa.Column("choice", sa.Integer, nullable=True),
        sa.Column("number", sa.Float, nullable=True),
        sa.Column("answered_at", sa.Float, nullable=False),
        sa.UniqueConstraint("question_id", "student"),
    )
    op.create_index("answers_by_question", "answers", ["question_id"])


def downgrade() -> None:
    op.drop_index("answers_by_question", "answers")
    for table in ("answers", "questions", "students", "classes"):
        op.drop_table(table)
