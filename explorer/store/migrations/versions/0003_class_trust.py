"""Class results no one can forge: who started a class and who joined (hashed addresses, for the per-address
limits), whether the class still takes joins, and a lecturer's question marked a poll or with an explanation."""

import sqlalchemy as sa
from alembic import op

revision = "0003_class_trust"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("classes") as batch:
        batch.add_column(sa.Column("address", sa.String(16), nullable=True))
        batch.add_column(sa.Column("joining", sa.Boolean, nullable=False, server_default=sa.true()))
    with op.batch_alter_table("students") as batch:
        batch.add_column(sa.Column("address", sa.String(16), nullable=True))
    op.create_index("students_by_address", "students", ["address", "joined_at"])
    with op.batch_alter_table("questions") as batch:
        batch.add_column(sa.Column("poll", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("explanation", sa.String(600), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("questions") as batch:
        batch.drop_column("explanation")
        batch.drop_column("poll")
    op.drop_index("students_by_address", "students")
    with op.batch_alter_table("students") as batch:
        batch.drop_column("address")
    with op.batch_alter_table("classes") as batch:
        batch.drop_column("joining")
        batch.drop_column("address")
