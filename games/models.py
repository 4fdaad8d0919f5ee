"""Games, seats and moves; the rules themselves live in games/ratumrad/."""
