"""Presentation of any :class:`~bellum.odds.result.OddsResult`.

Everything here works on the generic result - named outcomes and one loss
distribution per side - so a raw fight, a Panzer assault or an Empire planned
attack render the same way: a summary, a loss table, unicode histograms,
a JSON document (schema in ``docs/odds.md``) and an optional plot (png, pdf, svg, ...).
Functions return strings or write the requested file; the CLI prints.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from bellum.errors import CommandError, InputError
from bellum.fileio import IMAGE, check_overwrite, write_atomic
from bellum.odds.result import ATTACKER_WINS, QUANTILES, LossDistribution, OddsResult

#: Version of the JSON document written by :func:`to_json_dict`.
JSON_SCHEMA_VERSION = 1

_BLOCKS = " ▏▎▍▌▋▊▉█"
_BAR = "\x1b[36m"
_BOLD = "\x1b[1m"
_RESET = "\x1b[0m"


def percent(p: float, places: int | None = None) -> str:
    """A probability as a percentage; a near-certainty never shows as 100 % or 0 %.

    Without ``places`` it has the digits that tell it from certainty
    (``99.9999998 %``, ``1.9e-10 %``); a table's cells give ``places`` and read
    ``> 99.99 %`` or ``< 0.01 %`` there.
    """
    p = min(max(p, 0.0), 1.0)
    v = 100.0 * p
    if p in (0.0, 1.0):
        return f"{v:.0f} %"
    if places is not None:
        step = 10.0**-places
        if v < step:
            return f"< {step:.{places}f} %"
        if v > 100.0 - step:
            return f"> {100.0 - step:.{places}f} %"
        return f"{v:.{places}f} %"
    if v < 0.01:
        return f"{v:.2g} %"
    for digits in range(2, 13):
        text = f"{v:.{digits}f}"
        if text != f"{100:.{digits}f}":
            return f"{text} %"
    return f"{v:.15g} %"


def method_line(result: OddsResult) -> str:
    """How the numbers were obtained, always naming the method and the model."""
    parts = [f"model {result.model}", f"method {result.method}"]
    backend = result.details.get("backend")
    if isinstance(backend, str):
        parts.append(f"backend {backend}")
    if result.method == "monte-carlo":
        parts.append(f"{result.runs} runs")
        parts.append(f"seed {result.seed}")
        if result.standard_error is not None:
            parts.append(f"standard error {result.standard_error:.2g}")
    if result.pruned_mass is not None:
        parts.append(f"pruned mass {result.pruned_mass:.2g}")
    if result.seconds is not None:
        parts.append(f"{result.seconds:.3g} s")
    return ", ".join(parts)


def summary(result: OddsResult, *, color: bool = False) -> str:
    """Outcome probabilities, expected losses and the method line.

    When the attacker wins in several named ways (a Panzer assault's defenders
    eliminated, retreated, ...) their total comes first as P(attacker wins),
    with the ways indented under it, so the headline reads as in a fight while
    the listed outcomes still add up to 1.
    """
    split = result.winning_split
    rows: list[tuple[str, float]] = []
    if split:
        rows.append((f"P({ATTACKER_WINS})", result.p_attacker_wins))
    for name, p in result.outcomes.items():
        indent = "  " if split and name in result.attacker_wins else ""
        rows.append((f"{indent}P({name})", p))
    width = max(len(label) for label, _ in rows)
    lines = []
    for label, p in rows:
        value = percent(p)
        if p == 0.0 and result.pruned_mass:
            # What was dropped bounds what was not seen.
            value = f"below {percent(result.pruned_mass)} (pruned)"
        lines.append(f"{label.ljust(width)} {_BOLD + value + _RESET if color else value}")
    for side, dist in result.losses.items():
        lines.append(f"expected {side} losses: {dist.mean():.2f}")
    lines.append(f"({method_line(result)})")
    return "\n".join(lines)


def loss_table(
    losses: Mapping[str, LossDistribution], levels: tuple[float, ...] = QUANTILES
) -> str:
    """Mean and quantiles of each side's losses as an aligned table."""
    head = ["losses", "mean", *(f"{100 * q:g}%" for q in levels)]
    rows = [
        [side, f"{dist.mean():.2f}", *(str(v) for v in dist.quantiles(levels).values())]
        for side, dist in losses.items()
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    out = []
    for r in [head, *rows]:
        first = r[0].ljust(widths[0])
        rest = "  ".join(c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True))
        out.append(f"{first}  {rest}")
    return "\n".join(out)


#: Histograms show the losses between these quantiles; the rest is summed.
_HIST_RANGE = (0.0005, 0.9995)


def _bins(dist: LossDistribution, max_bins: int) -> tuple[list[tuple[str, float]], float]:
    """Equal-width ranges of losses over the central part of a pmf, and the mass outside."""
    if dist.values.size == 0:
        return [], 0.0
    lo, hi = dist.quantile(_HIST_RANGE[0]), dist.quantile(_HIST_RANGE[1])
    inside = (dist.values >= lo) & (dist.values <= hi)
    values, probs = dist.values[inside], dist.probs[inside]
    outside = float(dist.probs[~inside].sum())
    width = max(1, math.ceil((hi - lo + 1) / max_bins))
    edges = np.arange(lo, hi + width + 1, width)
    idx = np.searchsorted(edges, values, side="right") - 1
    sums = np.bincount(idx, weights=probs, minlength=edges.size - 1)
    out = []
    for i in range(edges.size - 1):
        first, last = int(edges[i]), int(edges[i + 1]) - 1
        label = str(first) if first == last else f"{first}-{last}"
        out.append((label, float(sums[i])))
    return out, outside


def histogram(
    dist: LossDistribution,
    *,
    title: str = "",
    width: int = 40,
    max_bins: int = 20,
    color: bool = False,
) -> str:
    """A horizontal unicode-block histogram of a loss distribution."""
    rows, outside = _bins(dist, max_bins)
    if not rows:
        return title
    top = max(p for _, p in rows) or 1.0
    label_w = max(len(label) for label, _ in rows)
    lines = [title] if title else []
    for label, p in rows:
        eighths = round(8 * width * p / top)
        bar = "█" * (eighths // 8) + (_BLOCKS[eighths % 8] if eighths % 8 else "")
        bar = bar.ljust(width)
        if color:
            bar = _BAR + bar + _RESET
        lines.append(f"{label.rjust(label_w)} │{bar} {percent(p)}")
    if outside > 0:
        lines.append(f"{'':>{label_w}}  (outside the range shown: {percent(outside)})")
    return "\n".join(lines)


def render_text(result: OddsResult, *, color: bool = False, width: int = 40) -> str:
    """The full terminal report: summary, loss table, one histogram per side."""
    parts = [summary(result, color=color), "", loss_table(result.losses)]
    for side, dist in result.losses.items():
        parts.append("")
        parts.append(histogram(dist, title=f"{side} losses", width=width, color=color))
    return "\n".join(parts)


def to_json_dict(result: OddsResult) -> dict[str, Any]:
    """The ``--json`` document (schema version :data:`JSON_SCHEMA_VERSION`)."""
    doc: dict[str, Any] = {
        "schema_version": JSON_SCHEMA_VERSION,
        "model": result.model,
        "method": result.method,
        "outcomes": {k: float(v) for k, v in result.outcomes.items()},
    }
    if result.names_attacker_wins:
        doc["p_attacker_wins"] = result.p_attacker_wins
    if result.method == "monte-carlo":
        doc["seed"] = result.seed
        doc["runs"] = result.runs
        doc["standard_error"] = result.standard_error
    else:
        doc["pruned_mass"] = result.pruned_mass
    doc["seconds"] = result.seconds
    doc["expected_losses"] = {side: d.mean() for side, d in result.losses.items()}
    doc["quantiles"] = {
        side: {f"{100 * q:g}": v for q, v in d.quantiles().items()}
        for side, d in result.losses.items()
    }
    doc["distributions"] = {
        side: {"losses": d.values.tolist(), "probabilities": d.probs.tolist()}
        for side, d in result.losses.items()
    }
    if result.end_states is not None:
        doc["end_states"] = {
            "attacker_wins_by_rounds_lost": result.end_states.attacker_wins.tolist(),
            "defender_wins_by_rounds_lost": result.end_states.defender_wins.tolist(),
        }
    doc["details"] = {k: _jsonable(v) for k, v in result.details.items()}
    doc["notes"] = list(result.notes)
    return doc


def _jsonable(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    return value


#: Plot formats offered: those matplotlib writes with its own code or the Pillow it depends
#: on.  ``pgf`` (needs LaTeX) and the raw buffers are left out on purpose.
PLOT_FORMATS = ("png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff")


def _pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (no display), or a one-line error."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise CommandError("plotting needs matplotlib: pip install 'bellum[plot]'") from None
    return plt


def plot_format(path: Path, *, force: bool = False) -> str:
    """The format a plot at ``path`` is written in, from its extension.

    Checked before any work is done (the CLI calls it while parsing options), so a
    misspelt ``--plot`` fails in one line instead of after the computation, and a name
    without an extension is refused rather than silently written with one appended.
    So is an existing file there that is not an image (unless ``force``).
    """
    plt = _pyplot()
    supported = plt.figure().canvas.get_supported_filetypes()
    plt.close("all")
    fmt = Path(path).suffix.lower().lstrip(".")
    usable = [f for f in PLOT_FORMATS if f in supported]
    if fmt not in usable:
        given = f"extension .{fmt}" if fmt else "no extension"
        raise InputError(
            f"cannot write a plot to {path}: {given}; use one of "
            + ", ".join(f".{f}" for f in usable),
            field="plot",
        )
    check_overwrite(path, IMAGE, force)
    return fmt


def write_plot(result: OddsResult, path: Path, *, force: bool = False) -> None:
    """Save the outcome probabilities and loss distributions as an image.

    The format comes from the extension (:func:`plot_format`: png, pdf, svg, ...).
    matplotlib is an optional extra, imported here (Agg backend, no display)
    so that nothing else pays for it.  The image is written like every other
    output (:func:`bellum.fileio.write_atomic`): whole or not at all, never over
    a read-only file, and over an existing file that is no image only with ``force``.
    """
    fmt = plot_format(path, force=force)
    plt = _pyplot()
    n = len(result.losses)
    fig, axes = plt.subplots(1, n + 1, figsize=(4 * (n + 1), 3.6), constrained_layout=True)
    ax = axes[0]
    names = list(result.outcomes)
    values = [100 * result.outcomes[k] for k in names]
    # The attacker's ways of winning in blue, the rest in red (the headline in blue when
    # the result names no winner).
    colors = [
        "tab:blue"
        if name in result.attacker_wins or (i == 0 and not result.names_attacker_wins)
        else "tab:red"
        for i, name in enumerate(names)
    ]
    bars = ax.bar(range(len(names)), values, color=colors)
    # More than two names do not fit side by side under a 4-inch axis.
    tilt = {"rotation": 30, "ha": "right"} if len(names) > 2 else {}
    ax.set_xticks(range(len(names)), names, **tilt)
    ax.set_ylim(0, 105)
    ax.set_ylabel("probability (%)")
    ax.set_title("outcome")
    for bar, v in zip(bars, values, strict=True):
        ax.annotate(f"{v:.1f} %", (bar.get_x() + bar.get_width() / 2, v), ha="center", va="bottom")
    for ax, (side, dist) in zip(axes[1:], result.losses.items(), strict=True):
        ax.bar(dist.values, 100 * dist.probs, width=1.0, color="tab:gray")
        for q, v in dist.quantiles((0.05, 0.5, 0.95)).items():
            ax.axvline(v, color="black", linestyle=":" if q != 0.5 else "-", linewidth=0.8)
        ax.set_title(f"{side} losses (mean {dist.mean():.1f})")
        ax.set_xlabel("casualties")
        ax.set_ylabel("probability (%)")
    fig.suptitle(method_line(result), fontsize=8)
    save_figure(fig, path, fmt, force=force)


def save_figure(fig: Any, path: Path, fmt: str, *, force: bool = False) -> None:
    """Render the matplotlib figure ``fig`` in memory, close it, and write it to ``path``
    like every other output (:func:`bellum.fileio.write_atomic`)."""
    plt = _pyplot()
    image = io.BytesIO()
    try:
        fig.savefig(image, dpi=100, format=fmt)
    except (ValueError, RuntimeError) as exc:  # a format whose writer is missing here
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CommandError(f"cannot write the plot to {path}: {why}") from None
    finally:
        plt.close(fig)
    write_atomic(path, image.getvalue(), kind=IMAGE, force=force)
