"""Process helpers for development, tests and benchmarks (not imported by the running application):
supervising an embedded Redis, Celery and gunicorn for ``make run`` (:mod:`.processes`), and a throw-away
PostgreSQL cluster for the tests and benchmarks (:mod:`.postgres`)."""
