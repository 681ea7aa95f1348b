"""Signals other apps listen to; the games app knows nothing of them."""

from django.dispatch import Signal

# Sent inside the transaction that finished the game: ``game`` is the finished Game.
game_finished = Signal()
