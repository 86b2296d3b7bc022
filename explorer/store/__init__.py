"""The explorer's one store: the result cache, class sessions with their polls and answers, and the locks that
replicas share.

SQLite (a file in the local cache folder) is the zero-set-up default; `$EXPLORER_DB_URL` points every replica
of a deployment at one PostgreSQL instead (see `explorer.store.db`)."""
