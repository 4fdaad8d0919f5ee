"""Admin for ratings and achievements (none yet)."""
