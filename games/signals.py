"""Signals other apps listen to; the games app knows nothing of them."""

from django.dispatch import Signal

# Sent inside the transaction that opened or answered an arbiter call: ``game`` and ``call`` (an ArbiterCall).
# The tournament app tells the control room of the game's tournament.
arbiter_call_changed = Signal()
