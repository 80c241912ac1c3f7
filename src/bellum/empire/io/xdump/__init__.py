"""The Empire server's text dumps (``empdump -x``, ``xdump``) and the worlds they hold.

:mod:`.syntax` splits a dump into tables and records and writes them back
byte for byte; :mod:`.mapping` reads the world out of them and lays a world's
values back over them.
"""

from bellum.empire.io.xdump.mapping import dump_to_world, read_dump, world_to_dump
from bellum.empire.io.xdump.syntax import Dump, parse_dump

__all__ = ["Dump", "dump_to_world", "parse_dump", "read_dump", "world_to_dump"]
