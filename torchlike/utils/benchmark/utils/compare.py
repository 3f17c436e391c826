"""``Compare``: Measurements as tables, one per label, in torch's layout.

Rows are sub_labels (else stmts), grouped by ``num_threads`` (a ``N threads: ----`` separator starts each
group) and ``env``; columns are descriptions. Replicates of one task are merged first. A table's times
share one unit, the one that shows its fastest median with 1-3 integer digits.

>>> from torchlike.utils.benchmark import Measurement, TaskSpec
>>> ms = [Measurement(1, [t * 1e-6] * 4, TaskSpec("f(x)", "pass", label="f", description=d))
...       for t, d in ((1.5, "n=1"), (12.25, "n=10"))]
>>> print(Compare(ms))
[----------- f -----------]
            |  n=1  |  n=10
1 threads: ----------------
      f(x)  |  1.5  |  12.2
<BLANKLINE>
Times are in microseconds (us).
<BLANKLINE>
"""
from __future__ import annotations

import enum
import math

from .common import Measurement, _log10_f32, ordered_unique, select_unit, trim_sigfig, unit_to_english

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _color(cell: str, value: float, best: float) -> str:
    """``cell`` coloured by how far ``value`` is from the best value it is compared with."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + cell + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + cell + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + cell + TERMINATE * 2
    if value >= best * 2:
        return BAD + cell + TERMINATE * 2
    return cell


class _ColumnFormat:
    """How one column writes its medians: a shared width and number of decimals."""

    def __init__(self, results, scale, trim, highlight):
        present = [m for m in results if m is not None]
        self._trim = trim
        self._highlight = highlight and any(m.has_warnings for m in present)
        digits = [math.ceil(_log10_f32(m.median / scale)) for m in present]
        decimals = min(max(m.significant_figures - d, 0) for d, m in zip(digits, present)) if trim else 1
        self._width = max(digits) + decimals + (1 if decimals else 0)
        self._decimals = decimals

    def cell(self, value, sigfigs, spread) -> str:
        if value is None:
            return " " * len(self.cell(1, sigfigs, None))
        if self._trim:
            value = trim_sigfig(value, sigfigs)
        note = f" (! {spread * 100:.0f}%)" if self._highlight and spread is not None else ""
        return f"{value:>{self._width}.{self._decimals}f}" + (f"{note:>7}" if self._highlight else note)


class _Table:
    """One label's Measurements laid out as torch's Compare prints them."""

    def __init__(self, results, colorize, trim, highlight):
        self.results, self.colorize, self.highlight = results, colorize, highlight
        self.label = results[0].label
        self.unit, self.scale = select_unit(min(m.median for m in results))
        # rows ordered by (num_threads, env), keeping the stmts' first-seen order within them
        self.row_keys = sorted(ordered_unique(self._row_key(m) for m in results), key=lambda k: k[:2])
        self.col_keys = ordered_unique(m.description for m in results)
        where = {k: i for i, k in enumerate(self.row_keys)}
        col = {k: j for j, k in enumerate(self.col_keys)}
        self.grid = [[None] * len(self.col_keys) for _ in self.row_keys]
        for m in results:
            self.grid[where[self._row_key(m)]][col[m.description]] = m
        # thread groups: the index of each row's group; columnwise colour compares within a group
        self.group, starts = [], []
        for i, (threads, _, _) in enumerate(self.row_keys):
            if i == 0 or threads != self.row_keys[i - 1][0]:
                starts.append(i)
            self.group.append(len(starts) - 1)
        self.group_starts = set(starts)
        self.formats = [_ColumnFormat([row[j] for row in self.grid], self.scale, trim, highlight)
                        for j in range(len(self.col_keys))]

    @staticmethod
    def _row_key(m):
        return m.num_threads, m.env, m.as_row_name

    def _row_cells(self, i) -> list[str]:
        envs = {m.env for m in self.results}
        threads, env, _ = self.row_keys[i]
        shown = len(envs) > 1 and (i in self.group_starts or env != self.row_keys[i - 1][1])
        width = max(len(e) for e in envs) if len(envs) > 1 else 0
        row = self.grid[i]
        first = next(m for m in row if m is not None)
        cells = ["  " + (f"({first.env})" if shown else "").ljust(width + 4) + first.as_row_name]
        for m, fmt in zip(row, self.formats):
            cells.append(fmt.cell(None, 1, None) if m is None else
                         fmt.cell(m.median / self.scale, m.significant_figures,
                                  m.iqr / m.median if m.has_warnings else None))
        return cells

    def _best(self, i) -> list[float | None]:
        row = self.grid[i]
        if self.colorize == Colorize.ROWWISE:
            return [min(m.median for m in row if m is not None)] * len(row)
        same_group = [r for k, r in enumerate(self.grid) if self.group[k] == self.group[i]]
        return [min((r[j].median for r in same_group if r[j] is not None), default=None) for j in range(len(row))]

    def render(self) -> str:
        table = [[""] + self.col_keys] + [self._row_cells(i) for i in range(len(self.row_keys))]
        n = max(len(r) for r in table)
        table = [r + [""] * (n - len(r)) for r in table]
        widths = [max(len(c) for c in col) for col in zip(*table)]
        header = "  |  ".join(c.center(w) for c, w in zip(table[0], widths))
        lines = [header]
        for i, cells in enumerate(table[1:]):
            if i in self.group_starts:
                lines.append(f"{self.row_keys[i][0]} threads: ".ljust(len(header), "-"))
            out = [cells[0].ljust(widths[0])]
            best = self._best(i) if self.colorize != Colorize.NONE else [None] * len(self.col_keys)
            for cell, w, m, b in zip(cells[1:], widths[1:], self.grid[i], best):
                cell = cell.center(w)
                out.append(_color(cell, m.median, b) if m is not None and b is not None else cell)
            lines.append("  |  ".join(out))
        warn = self.highlight and any(m.has_warnings for m in self.results)
        title = f" {self.label or ''} ".center(len(header) - 2, "-")
        body = "\n".join(lines)
        note = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n" if warn else ""
        return f"[{title}]\n{body}\n\nTimes are in {unit_to_english(self.unit)}s ({self.unit}).\n{note}"


class Compare:
    """Prints many Measurements as tables (``print(compare)`` or ``compare.print()``).

    One table per ``label``; rows are ``sub_label`` (else ``stmt``) per ``num_threads`` and ``env``; columns
    are ``description``. ``trim_significant_figures``, ``colorize`` and ``highlight_warnings`` adjust it.
    """

    def __init__(self, results) -> None:
        self._results: list[Measurement] = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self) -> str:
        return "\n".join(self._render())

    def extend_results(self, results) -> None:
        """Adds ``results`` (Measurements only) to the stored ones."""
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Show each median to its ``significant_figures`` only."""
        self._trim_significant_figures = True

    def colorize(self, rowwise=False) -> None:
        """Colour cells against the best of their column (or, ``rowwise``, of their row)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Mark high-variance measurements with ``(! XX%)``."""
        self._highlight_warnings = True

    def print(self) -> None:
        print(str(self))

    def _render(self) -> list[str]:
        by_label: dict = {}
        for m in Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        return [_Table(ms, self._colorize, self._trim_significant_figures, self._highlight_warnings).render()
                for ms in by_label.values()]
