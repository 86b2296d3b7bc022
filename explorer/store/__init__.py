"""The explorer's one store: class sessions, polls and answers, and the locks that replicas share.

SQLite (a file in the result cache folder) is the zero-set-up default; `$EXPLORER_DB_URL` points every replica
of a deployment at one PostgreSQL instead (see `explorer.store.db`)."""
