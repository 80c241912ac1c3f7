"""``bellum serve``: the planning table, a local web app over bellum's core.

:func:`create_app` builds the ASGI app; :mod:`bellum.web.games` is its one door into
the rules, the store and the odds.  Needs the ``web`` extra (``pip install 'bellum[web]'``).
"""

from __future__ import annotations

from bellum.web.app import create_app

__all__ = ["create_app"]
