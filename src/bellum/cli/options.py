"""Options several command groups share, declared once so they cannot drift apart.

``--seed`` takes 0..2**32-1 everywhere: the range of the server's ``init_genrand``
(Empire and Panzer dice), which numpy's seed sequences (Monte Carlo) accept too.
Every whole-number option is a :class:`Whole`, read by :mod:`bellum.numbers`, and
every bounded real one a :class:`Real`.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import click

from bellum.errors import BellumError, InputError, UsageError
from bellum.fileio import same_file
from bellum.numbers import shown, to_int

#: The largest seed: the server's MT19937 is seeded with a 32-bit word.
SEED_MAX = 2**32 - 1
#: The most ``--resolver-runs`` any command takes; how many fit in the time allowed is
#: estimated before they start (``bellum.budget``), which usually refuses far fewer.
RESOLVER_RUNS_MAX = 10_000_000

#: What the command line calls each input the core's errors name (``BellumError.field``);
#: ``""``: the message names it well enough (a sector it quotes).
OPTION_NAMES: dict[str, str] = {
    "assume": "--assume",
    "country": "--as",
    "defense_as_seen": "--defense-as-seen",
    "draws": "--fog-draws",
    "max_runs": "--max-runs",
    "method": "--method",
    "mil": "--mil",
    "model": "--model",
    "need": "--need",
    "option": "--option",
    "plot": "--plot",
    "prior": "--prior",
    "profile": "--profile",
    "resolver_runs": "--resolver-runs",
    "runs": "--runs",
    "sector": "",
    "sweep": "--sweep",
    "target_error": "--target-error",
    "unit": "--unit",
    "weight": "--weight",
}


def error_text(exc: BellumError) -> tuple[str, int]:
    """What the command line says about ``exc``, naming its input by its option, and the
    exit status: an input error about one of a command's inputs is a malformed command
    line (2)."""
    if exc.field is None:
        return str(exc), exc.exit_status
    status = UsageError.exit_status if isinstance(exc, InputError) else exc.exit_status
    return exc.worded(OPTION_NAMES), status


def refuse_same_file(
    out: str | os.PathLike[str] | None,
    option: str,
    inputs: Mapping[str, str | os.PathLike[str] | None],
) -> None:
    """A :class:`~bellum.errors.UsageError` if the output ``out`` is one of ``inputs``
    (``{"--db": path}``): writing there would destroy what is being read."""
    if out is None or str(out) == "-":
        return
    for name, path in inputs.items():
        if path is not None and same_file(out, path):
            raise UsageError(f"{option} {out} names the {name} file itself; write to another file")


F = TypeVar("F", bound=Callable[..., Any])


class Whole(click.IntRange):
    """A whole-number option or argument, read like every number bellum reads.

    click's ``int`` takes ``٣`` for 3 and quotes a 5,000-digit mistake in full;
    this reads ASCII digits only, at most :data:`bellum.numbers.MAX_DIGITS`, and
    quotes the mistake short.  ``min``/``max`` bound it as for ``click.IntRange``.
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            number = to_int(value, signed=True)
            if number is None:
                self.fail(f"'{shown(value)}' is not a whole number", param, ctx)
            value = number
        return super().convert(value, param, ctx)

    def _describe_range(self) -> str:
        """No ``[x<=None]`` in the help of a number with no bounds."""
        return "" if self.min is None and self.max is None else super()._describe_range()


class Real(click.FloatRange):
    """A real-number option that must be finite, within ``min``/``max``.

    click's ``float`` reads ``nan`` and ``inf``, and NaN passes every range check
    (each comparison with it is false): a timeout of NaN reached the socket as a
    traceback.
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"'{shown(str(value))}' is not a finite number", param, ctx)
        return number


class HiddenAliases(click.Option):
    """An option known by its first name; the others still work but are not shown.

    A name an option had before it was renamed stays an alias, so scripts keep
    working, while ``--help`` and the errors speak of one name only.
    """

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        every, self.opts = self.opts, self.opts[:1]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = every

    def get_error_hint(self, ctx: click.Context | None) -> str:
        return f"'{self.opts[0]}'"


class Sectioned(click.Command):
    """A command whose ``--help`` lists its options in sections, each under the title
    :func:`in_section` filed it under (the others, ``--help`` too, under "Options")."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        sections: dict[str, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx) if isinstance(param, click.Option) else None
            if record is not None:
                sections.setdefault(getattr(param, "section", "Options"), []).append(record)
        for title, rows in sections.items():
            with formatter.section(title):
                formatter.write_dl(rows)


def in_section(title: str, *options: Callable[[F], F]) -> Callable[[F], F]:
    """Apply the option decorators ``options`` (listed in the order ``--help`` shows
    them), filing every option they add under ``title`` (see :class:`Sectioned`)."""

    def apply(f: F) -> F:
        before = len(getattr(f, "__click_params__", ()))
        for option in reversed(options):
            f = option(f)
        for param in f.__click_params__[before:]:  # type: ignore[attr-defined]
            param.section = title
        return f

    return apply


def seed_option(help: str = "Seed the random draws (printed when not given).") -> Callable[[F], F]:
    """``--seed N``, 0..2**32-1, ``None`` when not given."""
    return click.option("--seed", type=Whole(0, SEED_MAX), default=None, help=help)


def json_option(help: str = "Print the result as JSON.") -> Callable[[F], F]:
    """``--json``, as the ``as_json`` parameter."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def echo_json(
    schema: str, version: int, body: Mapping[str, Any], *, indent: int | None = 2
) -> None:
    """Print one ``--json`` document: an object that names its kind in ``schema`` and its
    version in ``schema_version``, before the keys of ``body`` (docs/cli.md, "JSON").

    Every document has a JSON Schema, ``docs/schemas/`` plus the kind without its
    ``bellum.`` and with ``-`` for ``.`` (``bellum.empire.show``: ``empire-show.schema.json``).
    """
    doc: dict[str, Any] = {"schema": schema, "schema_version": version}
    doc.update((k, v) for k, v in body.items() if k not in doc)
    click.echo(json.dumps(doc, indent=indent))


__all__ = [
    "RESOLVER_RUNS_MAX",
    "SEED_MAX",
    "HiddenAliases",
    "Real",
    "Sectioned",
    "Whole",
    "echo_json",
    "in_section",
    "json_option",
    "seed_option",
]
