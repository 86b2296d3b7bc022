"""The result cache moves into the store: one row per (kind, configuration, code version), its JSON record."""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "results",
        sa.Column("key", sa.String(24), primary_key=True),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.Column("saved_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("results")
