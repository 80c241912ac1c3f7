"""Intelligence: what a country can know of the game, read from the server's reports."""
