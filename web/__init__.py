"""The web front: the app factory (app.py) and its blueprints, sign-in and error handling;
the command line (cli/) and the composition root (wiring.py) beside them.

Nothing is imported here: `subsearch --help` and `subsearch serve`, which only execs
gunicorn, load this package without loading Flask's app (docs/operating.md)."""
