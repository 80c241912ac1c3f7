"""SQLite persistence of worlds: schema, migrations and the object codec."""
