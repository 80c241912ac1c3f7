"""Numbers from text: ASCII digits only, bounded length, and C's atoi as the server runs it."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bellum.errors import InputError, UsageError
from bellum.numbers import (
    MAX_DIGITS,
    c_atoi,
    c_strtol,
    is_digits,
    parse_int,
    shown,
    to_decimal,
    to_int,
)


def test_to_int_takes_ascii_digits_only() -> None:
    assert to_int("42") == 42
    assert to_int(" 7 ") == 7
    assert to_int("007") == 7
    for text in ("²", "1²", "٣", "４２", "", " ", "1_000", "0x10", "1.0", "-3", "+3"):
        assert to_int(text) is None, text
    assert to_int("-3", signed=True) == -3
    assert to_int("+3", signed=True) == 3
    assert to_int("--3", signed=True) is None
    assert to_int("9" * MAX_DIGITS) == int("9" * MAX_DIGITS)
    assert to_int("9" * (MAX_DIGITS + 1)) is None
    assert to_int("9" * 5000) is None
    assert not is_digits("²") and is_digits("0123456789")


def test_to_decimal_takes_plain_decimals_only() -> None:
    assert to_decimal("2.5") == 2.5
    assert to_decimal(" -0.25 ") == -0.25
    assert to_decimal("+7") == 7.0 and to_decimal("0.0") == 0.0
    assert to_decimal(".5") == 0.5
    for text in ("", ".", "1.", "1e3", "inf", "nan", "1.2.3", "٣.5", "1,5", "--1", "0x1"):
        assert to_decimal(text) is None, text
    assert to_decimal("9" * MAX_DIGITS) == float("9" * MAX_DIGITS)
    assert to_decimal("9" * 10 + "." + "9" * 11) is None


def test_parse_int_gives_one_line_errors_quoting_the_text() -> None:
    assert parse_int("12", "--mil") == 12
    with pytest.raises(InputError, match=r"^--mil: expected a whole number, 0 or more, not '1²'$"):
        parse_int("1²", "--mil", lo=0)
    with pytest.raises(UsageError, match="at most 20 digits, not '9999"):
        parse_int("9" * 5000, "x", error=UsageError)
    with pytest.raises(InputError, match=r"^n: 300 is above 255$"):
        parse_int("300", "n", lo=1, hi=255)
    with pytest.raises(InputError, match=r"^n: -1 is below 0$"):
        parse_int("-1", "n", lo=0, signed=True)
    with pytest.raises(InputError) as info:
        parse_int("a\nb", "n")
    assert "\n" not in str(info.value)


def test_shown_cuts_long_text_and_escapes_control_characters() -> None:
    assert shown("abc") == "abc"
    assert shown("a\nb\x00") == "a\\nb\\x00"
    assert shown("9" * 5000) == "9" * 23 + "…"


def test_c_atoi_reads_like_the_server() -> None:
    assert c_atoi(None) == 0
    assert c_atoi("") == 0
    assert c_atoi("12abc") == 12
    assert c_atoi("  -5") == -5
    assert c_atoi("+5") == 5
    assert c_atoi("1²") == 1
    assert c_atoi("²") == 0
    assert c_atoi("٣") == 0
    assert c_atoi("4294967296") == 0
    assert c_atoi("2147483648") == -(2**31)
    assert c_atoi("9" * 5000) == -1
    assert c_atoi("-" + "9" * 5000) == 0


_LIBC = ctypes.util.find_library("c") if sys.platform.startswith("linux") else None


@pytest.mark.skipif(_LIBC is None, reason="needs the C library (Linux) as the oracle")
@given(
    st.text(
        st.one_of(
            st.sampled_from("0123456789 \t+-²٣x"),
            st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
        ),
        max_size=40,
    )
)
def test_c_atoi_is_the_c_library_atoi(text: str) -> None:
    """The real ``atoi`` of the C library the server links against is the oracle."""
    libc = ctypes.CDLL(_LIBC)
    libc.atoi.argtypes = [ctypes.c_char_p]
    libc.atoi.restype = ctypes.c_int
    assert c_atoi(text) == libc.atoi(text.encode("utf-8"))


@pytest.mark.skipif(_LIBC is None, reason="needs the C library (Linux) as the oracle")
@given(st.integers(min_value=-(10**30), max_value=10**30))
def test_c_atoi_wraps_large_numbers_like_the_c_library(n: int) -> None:
    libc = ctypes.CDLL(_LIBC)
    libc.atoi.argtypes = [ctypes.c_char_p]
    libc.atoi.restype = ctypes.c_int
    assert c_atoi(str(n)) == libc.atoi(str(n).encode())


@pytest.mark.skipif(_LIBC is None, reason="needs the C library (Linux) as the oracle")
@given(
    st.text(st.sampled_from("0123456789 \t+-,/x"), max_size=40),
    st.integers(min_value=-(10**30), max_value=10**30),
)
def test_c_strtol_is_the_c_library_strtol(text: str, n: int) -> None:
    """Value and end as the C library's ``strtol`` gives them (the server's list and
    coordinate readers), saturated however long the number."""
    libc = ctypes.CDLL(_LIBC)
    libc.strtol.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]
    libc.strtol.restype = ctypes.c_long
    for t in (text, str(n) + text, " -" + "9" * 5000 + "/1"):
        raw = ctypes.create_string_buffer(t.encode("ascii"))
        end = ctypes.c_char_p()
        value = libc.strtol(raw, ctypes.byref(end), 10)
        stop = ctypes.cast(end, ctypes.c_void_p).value - ctypes.addressof(raw)  # type: ignore[operator]
        got = c_strtol(t)
        assert (got or (0, 0)) == (value, stop)


def test_the_dump_footer_counts_in_ascii_digits() -> None:
    from bellum.empire.io.xdump.syntax import parse_dump

    assert parse_dump("XDUMP nat 0\n/0\n", "d").tables[0].footer == "/0"
    for footer in ("/²", "/٣", "/" + "9" * 5000, "/-1"):
        with pytest.raises(InputError, match="malformed table footer"):
            parse_dump(f"XDUMP nat 0\n{footer}\n", "d")
