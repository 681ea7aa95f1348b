"""Search on the rules engine: forced wins (VCF, VCT), alpha-beta, computer players, game analysis.

>>> from engine import Board, Renju
>>> board = Board.replay("h8 g8 i8 a1 j8 a3 k9 a5 k10 o15")
>>> [str(p) for p in find_vcf(board, Renju())]
['k8', 'l8', 'k7', 'k6', 'k11']
>>> str(ComputerPlayer(Renju(), level=2, seed=1).best_move(board))
'k8'
"""

from engine import native

native.activate(__path__, "search")

from engine.search.analysis import Limits, MoveNote, analyse
from engine.search.players import LEVELS, ComputerPlayer, Level, play_out
from engine.search.solver import find_vcf, find_vct

__all__ = ["LEVELS", "ComputerPlayer", "Level", "Limits", "MoveNote", "analyse", "find_vcf", "find_vct", "play_out"]
