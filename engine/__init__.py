"""Gomoku and renju rules."""
