"""Alembic's entry point: migrations run on the connection `explorer.store.db` hands over."""

from alembic import context

context.configure(connection=context.config.attributes["connection"], render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
