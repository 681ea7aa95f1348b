"""The hall's games live to the world: over-the-board games recorded move by move at the board by one
recorder per board, corrected openly, and shown to the public after the stage's publish delay
(docs/relay.md)."""
