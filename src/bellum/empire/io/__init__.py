"""World formats and storage: TOML world files, the game's xdump, the SQLite store."""
