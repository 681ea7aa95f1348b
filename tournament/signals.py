"""What the tournament app announces to the apps above it (ratings), which it never imports."""

from __future__ import annotations

from django.dispatch import Signal

# Sent (with ``tournament``) when the first stage is about to be drawn: entries are fixed.
tournament_starting = Signal()
# Sent (with ``tournament``) when a tournament finishes, and again whenever a result changes after it did.
tournament_finished = Signal()
