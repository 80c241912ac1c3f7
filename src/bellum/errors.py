"""The exceptions bellum raises for problems a user can fix.

Every error is a one-line, user-facing message; the CLI prints it after
``bellum: error:`` and exits with status 1 (or 2 for usage errors).

* :class:`BellumError` - base class of everything below.
* :class:`InputError` - bad input data (world file, scenario, dump). Also a
  :class:`ValueError`, so library users can catch either.
* :class:`CommandError` - a command that was refused or failed.
* :class:`UsageError` - the command line itself is malformed.
"""

from __future__ import annotations


class BellumError(Exception):
    """Base class for every user-facing bellum error."""

    exit_status = 1


class InputError(BellumError, ValueError):
    """Input data (a world, a scenario, a dump) is malformed or contradictory."""


class CommandError(BellumError):
    """A command was refused or failed."""


class UsageError(BellumError):
    """The command's arguments are malformed."""

    exit_status = 2
