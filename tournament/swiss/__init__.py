"""The Swiss system: a tournament's state as FIDE's pairing programs see it, pairings, tie-breaks, TRF.

The modules ``state``, ``trf``, ``pairing``, ``explain`` and ``tiebreaks`` are plain Python (no Django):
they work on :class:`~tournament.swiss.state.SwissState`, which :mod:`tournament.swiss.selectors` builds
from the database and :mod:`tournament.swiss.trf` reads from and writes to a TRF file. The services that
change rows are in :mod:`tournament.swiss.services`.

Colours: FIDE's "white" is the player who moves first. In gomoku and renju that is black, or, under an
opening protocol with a swap, the tentative black (the player who opens). Everywhere in this package
``"w"`` means that first-player role and ``"b"`` the other; a TRF file uses the same letters.
"""
