"""World formats and storage: what a world looks like outside Python.

* :mod:`.toml` - bellum's world files (docs/world-format.md): ``load_world``,
  ``save_world``, ``parse_world``, ``world_to_data``.
* :mod:`.xdump` - the Empire server's text dumps: :mod:`.xdump.syntax` keeps
  every line, :mod:`.xdump.mapping` reads and writes the world they hold.
* :mod:`.sqlite` - the world database (docs/store.md): a world, its imported
  dump and its command history.

These modules know worlds, not commands: nothing here imports the combat
rules, and no rules module imports this package.  Running an order on a
stored world is :mod:`bellum.empire.service`'s business.
"""
