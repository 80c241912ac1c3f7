"""The exceptions bellum raises for problems a user can fix.

Every error is a one-line, user-facing message; the CLI prints it after
``bellum: error:`` and exits with status 1 (or 2 for usage errors).

* :class:`BellumError` - base class of everything below.
* :class:`InputError` - bad input data (world file, scenario, dump). Also a
  :class:`ValueError`, so library users can catch either.
* :class:`CommandError` - a command that was refused or failed.
* :class:`UsageError` - the command line itself is malformed (raised by the
  command line only: the core says which of its inputs is wrong instead).

An error about one of a command's inputs names it: ``field`` (``mil``, ``unit``,
``need``, ``option``...) and ``value``, what was given.  Its message says what is
wrong without saying how the input was given, and each edge words it for its own
users (:meth:`BellumError.worded`): the command line names its option, the web
page its control.
"""

from __future__ import annotations

from collections.abc import Mapping


class BellumError(Exception):
    """Base class for every user-facing bellum error."""

    exit_status = 1

    def __init__(self, message: str = "", *, field: str | None = None, value: object = None):
        super().__init__(message)
        self.field = field
        self.value = value

    def worded(self, names: Mapping[str, str], join: str = " ") -> str:
        """The message as an edge says it, calling the input ``field`` ``names[field]``
        (itself when unnamed; nothing when ``""``) followed by the value given."""
        if self.field is None:
            return str(self)
        label = names.get(self.field, self.field)
        if self.value is not None:
            label = f"{label}{join}{self.value}" if label else str(self.value)
        return f"{label}: {self}" if label else str(self)


class InputError(BellumError, ValueError):
    """Input data (a world, a scenario, a dump) is malformed or contradictory."""


class CommandError(BellumError):
    """A command was refused or failed."""


class UsageError(BellumError):
    """The command's arguments are malformed."""

    exit_status = 2
