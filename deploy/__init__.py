"""Serving a class: several app replicas behind nginx with sticky sessions (`make serve`, `make stop`)."""
