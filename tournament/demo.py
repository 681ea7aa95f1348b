"""The demo accounts (plain data, no Django imports: the run script prints them)."""

from __future__ import annotations

DEMO_PASSWORD = "demo-pass-2026"
PLAYER_COUNT = 22


def demo_accounts() -> list[tuple[str, str, str]]:
    """(username, role, display name) of every demo account."""
    accounts = [("organizer", "organizer", "Organizer 组织者")]
    accounts += [(f"referee{i}", "referee", f"Referee 裁判 {i}") for i in (1, 2)]
    accounts += [(f"player{i:02d}", "player", f"Player 棋手 {i:02d}") for i in range(1, PLAYER_COUNT + 1)]
    return accounts
