"""Admin for games, seats and moves (none yet)."""
