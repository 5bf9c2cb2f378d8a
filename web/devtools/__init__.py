"""Development stand-ins, never used in production: the local payment provider
(local_payments/) and the demo data `subsearch sample load` adds (demo.py). They live
outside the domain: models/ never imports them, and the composition root (web/wiring.py)
is the one place that picks the local provider."""
