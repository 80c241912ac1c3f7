"""Whole numbers typed by people or read from files, parsed in one place.

Python's ``str.isdigit()`` and ``int()`` accept far more than a player or a
game file means by a number: ``'²'.isdigit()`` is true yet ``int('²')``
fails, ``int('٣')`` is 3, and ``int()`` refuses numbers past 4,300 digits
with an exception that is not a usage error.  Every number bellum reads from
text therefore goes through this module: ASCII digits only, an optional sign
only where the caller allows one, and at most :data:`MAX_DIGITS` digits.

* :func:`to_int` - the number the whole text spells, or ``None``.
* :func:`to_decimal` - a decimal number (``-2.5``) the whole text spells, or ``None``.
* :func:`parse_int` - the same, or one :class:`~bellum.errors.InputError`
  line (or the error class the caller names) quoting the text.
* :func:`c_atoi` - C's ``atoi`` as the Empire server runs it, for prompt
  answers: a prefix of digits counts, anything else is 0.
* :func:`c_strtol` - C's ``strtol``, for the server's own readers of arguments
  (lists of numbers, coordinates): the value and where its digits end.
* :func:`shown` - a piece of input fit to quote in a one-line message.
"""

from __future__ import annotations

from bellum.errors import BellumError, InputError

#: The most digits bellum reads in one number.  Every number the games use fits
#: (the largest, a seed, is below 2**64, 20 digits), and the limit keeps
#: Python's big integers and their 4,300-digit conversion limit out of reach.
MAX_DIGITS = 20
ASCII_DIGITS = frozenset("0123456789")
#: What C's ``isspace`` skips in the "C" locale, which the server runs in.
_C_SPACE = " \t\n\v\f\r"
_INT32 = 2**32
_LONG_MAX = 2**63 - 1


def is_digits(text: str) -> bool:
    """``text`` is one or more ASCII digits (``str.isdigit`` also takes ``²`` and ``٣``)."""
    return bool(text) and all(c in ASCII_DIGITS for c in text)


def to_int(text: str, *, signed: bool = False, max_digits: int = MAX_DIGITS) -> int | None:
    """The whole number ``text`` spells (surrounding blanks allowed), else ``None``.

    Only ASCII digits count, with a leading ``-`` or ``+`` when ``signed``;
    more than ``max_digits`` digits is not a number bellum reads.
    """
    s = text.strip(_C_SPACE)
    body = s[1:] if signed and s[:1] in ("-", "+") else s
    if not is_digits(body) or len(body) > max_digits:
        return None
    return int(s)


def to_decimal(text: str, *, max_digits: int = MAX_DIGITS) -> float | None:
    """The decimal number ``text`` spells (``12``, ``-0.25``; blanks around allowed), else
    ``None``: ASCII digits, an optional sign, one optional point, no exponent, at most
    ``max_digits`` digits in all (so never ``inf``, ``nan`` or ``1e999``)."""
    s = text.strip(_C_SPACE)
    body = s[1:] if s[:1] in ("-", "+") else s
    whole, point, fraction = body.partition(".")
    digits = whole + fraction
    if not is_digits(digits) or len(digits) > max_digits or (point and not fraction):
        return None
    return float(s)


def shown(text: str, limit: int = 24) -> str:
    """``text`` as a message quotes it: control characters escaped, long text cut short."""
    cut = text if len(text) <= limit else text[: limit - 1] + "…"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in cut)


def parse_int(
    text: str,
    what: str,
    *,
    lo: int | None = None,
    hi: int | None = None,
    signed: bool | None = None,
    error: type[BellumError] = InputError,
) -> int:
    """The whole number ``text`` spells, checked against ``lo`` and ``hi``.

    ``what`` names the value in the message (``"--size"``, ``"relations key"``);
    a sign is accepted when ``signed`` is true, or by default when ``lo`` is
    below zero.  Problems raise ``error`` with one line quoting the text.
    """
    allow_sign = (lo is None or lo < 0) if signed is None else signed
    v = to_int(text, signed=allow_sign)
    if v is None:
        kind = "a whole number" if allow_sign else "a whole number, 0 or more"
        if is_digits(text.strip().lstrip("+-")):
            kind += f", at most {MAX_DIGITS} digits"
        raise error(f"{what}: expected {kind}, not '{shown(text)}'")
    if lo is not None and v < lo:
        raise error(f"{what}: {v} is below {lo}")
    if hi is not None and v > hi:
        raise error(f"{what}: {v} is above {hi}")
    return v


def c_strtol(text: str, start: int = 0) -> tuple[int, int] | None:
    """C's ``strtol`` (base 10) from ``text[start]``, as glibc computes it on 64 bits.

    Leading blanks and one sign, then the longest run of ASCII digits; the value
    saturates at the limits of a ``long`` (glibc's ``ERANGE``), however many
    digits follow.  Returns the value and where the digits end, or ``None`` when
    there are no digits (C's ``strtol`` then returns 0 and consumes nothing).
    """
    i = start
    while i < len(text) and text[i] in _C_SPACE:
        i += 1
    negative = text[i : i + 1] == "-"
    if text[i : i + 1] in ("-", "+"):
        i += 1
    end = i
    while end < len(text) and text[end] in ASCII_DIGITS:
        end += 1
    if end == i:
        return None
    digits = text[i:end].lstrip("0") or "0"
    if len(digits) > 19:
        return (-_LONG_MAX - 1 if negative else _LONG_MAX), end
    value = -int(digits) if negative else int(digits)
    return max(-_LONG_MAX - 1, min(_LONG_MAX, value)), end


def c_atoi(text: str | None) -> int:
    """C's ``atoi`` as the server (glibc, 64-bit) computes it; ``None`` (end of input) is 0.

    Leading blanks and one sign, then the longest run of ASCII digits; what
    follows is ignored (``"12abc"`` is 12) and no digits give 0.  glibc's
    ``atoi`` is ``(int) strtol(...)``: the value saturates at the limits of a
    64-bit ``long`` and keeps the low 32 bits, so ``"4294967296"`` is 0 and a
    5,000-digit answer is -1, exactly as the real server reads them.
    """
    got = None if text is None else c_strtol(text)
    if got is None:
        return 0
    low = got[0] % _INT32
    return low - _INT32 if low >= _INT32 // 2 else low


_ONES = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
]  # fmt: skip
_TENS = [
    "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred"
]  # fmt: skip


def numstr(n: int) -> str:
    """``n`` in words, as the server's ``numstr`` writes it: "twenty-one", "several"
    above a hundred."""
    if n > 100:
        return "several"
    if n < 0:
        return "a negative number of"
    if n < 20:
        return _ONES[n]
    return _TENS[n // 10] + (f"-{_ONES[n % 10]}" if n % 10 else "")


__all__ = [
    "MAX_DIGITS", "c_atoi", "c_strtol", "is_digits", "numstr", "parse_int", "shown", "to_int"
]  # fmt: skip
