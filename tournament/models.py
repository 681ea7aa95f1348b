"""Tournaments, stages, groups and matches (filled in by the tournament issue)."""
