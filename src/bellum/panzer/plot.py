"""The picture of ``bellum panzer odds --sweep --plot FILE``: what more force buys.

One assault's own odds are drawn by ``bellum.odds.report.write_plot``, as for a fight; this
module draws a sweep (:func:`bellum.panzer.distribution.odds_sweep`): P(success) and the
expected losses of both sides against the scale of the attacking force.  matplotlib is the
optional ``plot`` extra, imported only here and only when asked.
"""

from __future__ import annotations

from pathlib import Path

from bellum.odds.report import plot_format, save_figure
from bellum.panzer.assault import odds_text
from bellum.panzer.distribution import Sweep


def write_sweep_plot(sweep: Sweep, path: Path, *, force: bool = False) -> None:
    """Save the sweep as an image in the format of ``path``'s extension (png, pdf, svg, ...);
    an existing file that is not an image is kept unless ``force``."""
    # Refuses a bad extension, a missing matplotlib and a file that is no image, in one line.
    fmt = plot_format(path, force=force)
    import matplotlib.pyplot as plt

    scales = [row.scale for row in sweep.rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.8), constrained_layout=True)
    left.plot(scales, [100 * r.distribution.p_success for r in sweep.rows], "o-", color="tab:blue")
    left.set_ylim(0, 105)
    left.set_ylabel("P(success) (%)")
    left.set_title(f"assault on {sweep.target}")
    right.plot(
        scales, [r.distribution.expected_loss(True) for r in sweep.rows], "o-", label="attacker"
    )
    right.plot(
        scales, [r.distribution.expected_loss(False) for r in sweep.rows], "s-", label="defender"
    )
    right.set_ylabel("expected losses (men-equivalents)")
    right.set_title("expected losses")
    right.legend()
    labels = [f"{r.scale:.2g}x\n{odds_text(r.breakdown.odds, ':')}" for r in sweep.rows]
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xticks(scales, labels, fontsize=7)
        ax.minorticks_off()
        ax.axvline(1.0, color="gray", linewidth=0.8, linestyle=":")
        ax.set_xlabel("attacking force (odds)")
        ax.grid(alpha=0.3)
    save_figure(fig, path, fmt, force=force)
