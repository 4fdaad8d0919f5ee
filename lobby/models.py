"""Lobby data (none yet)."""
