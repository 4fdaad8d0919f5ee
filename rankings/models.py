"""Ratings and achievements (none yet)."""
