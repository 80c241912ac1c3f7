"""Wolfpack Empire 4.4: world model and combat commands."""
