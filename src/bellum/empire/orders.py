"""Orders: a combat command as a player types it, e.g. ``attack 2,0 y y n n``.

An :class:`Order` is the command's name and its argument words, nothing more.
It is what every edge hands to :func:`bellum.empire.run_command` (the CLI from
its arguments, a web form or the history from the text) and what the store
keeps, so a command is recorded in the form the player gave it, not in the
shape of a Python signature.

The text follows the server's own command-line parser (``parse.c``): words
are separated by blanks, and a double quote starts or ends a quoted stretch,
so ``paradrop 0 "" 0,0 jj`` gives an empty escort list.  :meth:`Order.text`
writes what :meth:`Order.parse` reads back (spec §1.1: a missing argument is
asked for, so only trailing arguments may be left out).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bellum.errors import InputError


@dataclass(frozen=True)
class Syntax:
    """How one command takes its arguments (spec §16 usage lines).

    ``slots`` are the named arguments, asked for when missing; with
    ``support`` the words after them are the four support answers (§2.1).
    ``ship`` is the slot that names the ship the command takes its mil from,
    which may be a sector instead when ``ship_or_sector``.
    """

    slots: tuple[str, ...]
    support: bool = False
    ship: int | None = None
    ship_or_sector: bool = False


#: What a player types for each combat command, in the order of spec §16 (the rest of
#: each command is in :data:`bellum.empire.combat.commands.COMMANDS`).
SYNTAX: dict[str, Syntax] = {
    "attack": Syntax(("target",), support=True),
    "assault": Syntax(("target", "ship"), support=True, ship=1),
    "paradrop": Syntax(("planes", "escorts", "ap", "route")),
    "board": Syntax(("victim", "source"), ship=1, ship_or_sector=True),
    "lboard": Syntax(("victim", "source")),
}


#: Control characters but the tab: a line to the server cannot hold them, and the server
#: drops them from an answer (``prmptrd``).
CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
#: What the server's parser drops from a word: all but printable ASCII and the tab.
_FUNNY = re.compile(r"[^\x20-\x7e\t]")


@dataclass(frozen=True)
class Order:
    """A combat command and its argument words, e.g. ``Order("attack", ("2,0",))``.

    ``str(order)`` is the text a player would type; ``Order.parse`` reads it.
    """

    name: str
    args: tuple[str, ...] = ()
    #: Words that start with ``?``: the server's conditional argument (``parse.c`` takes
    #: them out of the arguments; only object lists, a paradrop's planes, read them).
    conditions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        syntax = SYNTAX.get(self.name)
        if syntax is None:
            raise InputError(f"unknown command {self.name!r} (one of {', '.join(sorted(SYNTAX))})")
        for i, word in enumerate((*self.args, *self.conditions), 1):
            if not isinstance(word, str):
                raise InputError(f"{self.name}: argument {i} is not text: {word!r}")
            if '"' in word or CONTROL.search(word):
                raise InputError(
                    f"{self.name}: argument {i} {word!r} cannot hold a double quote or a"
                    " control character"
                )
        # The server's parser keeps printable ASCII and tabs of each word, nothing else;
        # an unquoted word that starts with ? is its condition, > or | a redirection.
        words = [_FUNNY.sub("", w) for w in self.args]
        for word in (*words, *self.conditions):
            if word[:1] in (">", "|") and _bare(word):
                raise InputError(
                    f"{self.name}: {word!r}: the server would send its output elsewhere"
                    " ('>' and '|' redirect it); bellum does not"
                )
        conditions = [w for w in words if w[:1] == "?" and _bare(w)]
        object.__setattr__(self, "args", tuple(w for w in words if w not in conditions))
        object.__setattr__(self, "conditions", (*self.conditions, *conditions))
        if not syntax.support and len(self.args) > len(syntax.slots):
            raise InputError(
                f"{self.name} takes at most {len(syntax.slots)} arguments, got {len(self.args)}"
            )

    @classmethod
    def parse(cls, text: str) -> Order:
        """The order in ``text`` as the server splits it; blank text is an :class:`InputError`."""
        words: list[str] = []
        word: list[str] | None = None
        quoted = False
        for ch in text:
            if not quoted and ch.isspace():
                if word is not None:
                    words.append("".join(word))
                    word = None
                continue
            if word is None:
                word = []
            if ch == '"':
                quoted = not quoted
            else:
                word.append(ch)
        if word is not None:
            words.append("".join(word))
        if not words:
            raise InputError("an order needs a command, e.g. 'attack 2,0'")
        return cls(words[0], tuple(words[1:]))

    @classmethod
    def of(cls, name: str, words: list[str | None]) -> Order:
        """The order from a command line's arguments, ``None`` for those left out.

        Leading and trailing blanks are dropped, as the server's parser does.
        """
        given = list(words)
        while given and given[-1] is None:
            given.pop()
        if None in given:
            raise InputError(f"{name}: only the last arguments may be left out")
        return cls(name, tuple(w.strip() for w in given if w is not None))

    @classmethod
    def from_call(cls, name: str, args: list[str | None], extra: dict[str, Any]) -> Order:
        """The order recorded by a store of schema 2 or older (positional and keyword
        arguments of the Python function, ``support_args`` the only keyword)."""
        return cls.of(name, [*args, *extra.get("support_args", [])])

    @property
    def syntax(self) -> Syntax:
        return SYNTAX[self.name]

    def slots(self) -> list[str | None]:
        """The named arguments in order, ``None`` for those the command will ask for."""
        n = len(self.syntax.slots)
        return [*self.args[:n], *[None] * (n - len(self.args[:n]))]

    def _ship_word(self) -> str | None:
        i = self.syntax.ship
        return None if i is None else self.slots()[i]

    @property
    def ship(self) -> int | None:
        """The number of the ship the command takes its mil from (``assault``'s SHIP,
        ``board``'s FROM when it is a number); ``None`` when there is none or it is not
        given yet (the command will ask for it)."""
        word = self._ship_word()
        return int(word) if word is not None and _is_number(word) else None

    @property
    def takes_ship_mil(self) -> bool:
        """Whether the command may ask for mil from a ship: ``assault``, and ``board``
        unless its FROM is a sector."""
        if self.syntax.ship is None:
            return False
        word = self._ship_word()
        return not self.syntax.ship_or_sector or word is None or _is_number(word)

    def support(self) -> list[str]:
        """The support words after the named arguments (``attack`` and ``assault``)."""
        return list(self.args[len(self.syntax.slots) :])

    def text(self) -> str:
        """The order as a player types it; :meth:`parse` gives it back."""
        return " ".join([self.name, *(_quote(w) for w in (*self.args, *self.conditions))])

    def __str__(self) -> str:
        return self.text()


def _is_number(word: str) -> bool:
    return word.isascii() and word.isdigit()


def _bare(word: str) -> bool:
    """Whether :meth:`Order.text` writes ``word`` without quotes."""
    return bool(word) and not any(ch.isspace() for ch in word)


def _quote(word: str) -> str:
    return word if _bare(word) else f'"{word}"'


def as_order(order: str | Order) -> Order:
    """``order`` itself, or the order its text says."""
    return order if isinstance(order, Order) else Order.parse(order)


__all__ = ["SYNTAX", "Order", "Syntax", "as_order"]
