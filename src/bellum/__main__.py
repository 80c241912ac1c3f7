"""``python -m bellum``."""

from bellum.cli import main

if __name__ == "__main__":
    main()
