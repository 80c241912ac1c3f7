"""The documentation that promises an API: its examples run, and it names every stable name."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api.md"


def test_api_examples_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``>>>`` example of docs/api.md, as doctests from the repository's root."""
    monkeypatch.chdir(ROOT)
    failed, tried = doctest.testfile(
        str(API), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False
    )
    assert tried >= 20 and failed == 0


@pytest.mark.parametrize("package", ["bellum", "bellum.empire", "bellum.panzer", "bellum.odds"])
def test_api_names_every_public_name(package: str) -> None:
    module = importlib.import_module(package)
    text = API.read_text()
    for name in module.__all__:
        assert hasattr(module, name), f"{package}.__all__ lists {name}, which is missing"
        assert re.search(rf"`[^`]*\b{re.escape(name)}\b[^`]*`", text), (
            f"docs/api.md does not mention {package}.{name}"
        )


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


@pytest.mark.parametrize("block", python_blocks(ROOT / "README.md"))
def test_readme_python_runs_and_prints_what_its_comments_say(
    block: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``print(...)  # text`` line must print ``text``: a reader sees what they get,
    not a dataclass repr."""
    monkeypatch.chdir(ROOT)
    exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    prints = [line for line in block.splitlines() if line.startswith("print(")]
    assert len(printed) >= len(prints)
    for line, out in zip(prints, printed[-len(prints) :], strict=True):
        if "  # " in line:
            assert out == line.partition("  # ")[2], line
    assert not any(re.search(r"\b[A-Z]\w+\(\w+=", out) for out in printed), printed
