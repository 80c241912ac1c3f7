"""The Empire server's text dumps: their syntax and what they mean as a world."""
