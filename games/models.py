"""Games, moves, clocks and claims (filled in by the games issue)."""
