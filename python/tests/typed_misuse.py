"""Wrong on purpose: test_packaging.py checks that mypy --strict, reading the stubs, refuses it."""
import commlab

commlab.time_collective(ranks="eight")
