"""Signals other apps listen to; the games app knows nothing of them."""

from django.dispatch import Signal

# Sent inside the transaction that finished the game: ``game`` is the finished Game; ``correction`` is True
# when a finished result was replaced; ``confirm`` is the organizer's reason for a correction a listener would
# otherwise refuse; ``actor`` who did it. A listener refuses the change by raising GameError (it is rolled back).
game_finished = Signal()

# Sent inside the transaction that opened or answered an arbiter call: ``game`` and ``call`` (an ArbiterCall).
# The tournament app tells the control room of the game's tournament.
arbiter_call_changed = Signal()
