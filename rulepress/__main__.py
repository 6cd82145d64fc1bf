"""`python -m rulepress` is the `rulepress` command."""
from .cli import run

run()
