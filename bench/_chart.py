"""A small SVG chart kit (bars, horizontal bars, log-log lines), rendered to PNG by Chromium.

No plotting library: the SVG is written here and Chromium (already needed for the browser
benchmarks) turns it into a PNG with a screenshot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

COLORS = ["#3366cc", "#ee7733", "#229966", "#cc3344", "#8855bb", "#777777"]
FONT = "font-family='DejaVu Sans, Arial, sans-serif'"


def _fmt(value: float) -> str:
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:,.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    if magnitude >= 1:
        return f"{value:.2f}"
    if magnitude >= 0.01:
        return f"{value:.2f}"
    return f"{value:.1e}"


@dataclass
class Scale:
    """Maps data values to pixels along one axis (linear or log10)."""

    low: float
    high: float
    start: float
    end: float
    log: bool = False

    def __call__(self, value: float) -> float:
        if self.log:
            value = max(value, self.low)
            a, b, v = math.log10(self.low), math.log10(self.high), math.log10(value)
        else:
            a, b, v = self.low, self.high, value
        fraction = 0.0 if b == a else (v - a) / (b - a)
        return self.start + fraction * (self.end - self.start)

    def ticks(self) -> list[float]:
        if self.log:
            first, last = math.floor(math.log10(self.low)), math.ceil(math.log10(self.high))
            return [10.0**k for k in range(first, last + 1) if self.low <= 10.0**k <= self.high]
        span = self.high - self.low
        raw = span / 5 if span > 0 else 1.0
        power = 10 ** math.floor(math.log10(raw))
        step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
        count = math.floor(self.high / step)
        return [i * step for i in range(0, count + 1) if i * step >= self.low]


def linear_scale(values: Sequence[float], start: float, end: float) -> Scale:
    top = max([v for v in values if math.isfinite(v)] or [1.0])
    top = top * 1.18 if top > 0 else 1.0
    return Scale(0.0, top, start, end)


def log_scale(values: Sequence[float], start: float, end: float, floor: float = 1e-3) -> Scale:
    finite = [v for v in values if math.isfinite(v) and v > 0]
    low = max(min(finite or [1.0]), floor)
    high = max(finite or [10.0])
    low = 10 ** math.floor(math.log10(low))
    high = 10 ** math.ceil(math.log10(high) + 0.15)
    return Scale(low, high, start, end, log=True)


@dataclass
class Panel:
    """One chart in the grid: a box, a title, and the SVG elements drawn into it."""

    x: float
    y: float
    width: float
    height: float
    title: str
    parts: list[str] = field(default_factory=list)
    left: float = 62
    right: float = 14
    top: float = 66
    bottom: float = 48

    @property
    def plot(self) -> tuple[float, float, float, float]:
        return (
            self.x + self.left,
            self.y + self.top,
            self.x + self.width - self.right,
            self.y + self.height - self.bottom,
        )

    def text(
        self,
        x: float,
        y: float,
        content: str,
        *,
        size: int = 11,
        anchor: str = "middle",
        color: str = "#222",
        weight: str = "normal",
        rotate: float | None = None,
    ) -> None:
        transform = f" transform='rotate({rotate} {x:.1f} {y:.1f})'" if rotate is not None else ""
        self.parts.append(
            f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}' "
            f"fill='{color}' font-weight='{weight}' {FONT}{transform}>{escape(content)}</text>"
        )

    def line(
        self, x1: float, y1: float, x2: float, y2: float, color: str = "#ccc", dash: str = ""
    ) -> None:
        extra = f" stroke-dasharray='{dash}'" if dash else ""
        self.parts.append(
            f"<line x1='{x1:.1f}' y1='{y1:.1f}' x2='{x2:.1f}' y2='{y2:.1f}' stroke='{color}'"
            f" stroke-width='1'{extra}/>"
        )

    def rect(self, x: float, y: float, w: float, h: float, color: str) -> None:
        self.parts.append(
            f"<rect x='{x:.1f}' y='{y:.1f}' width='{max(w, 0):.1f}' height='{max(h, 0):.1f}'"
            f" fill='{color}'/>"
        )

    def frame(self, subtitle: str = "") -> None:
        self.parts.append(
            f"<rect x='{self.x + 4:.1f}' y='{self.y + 4:.1f}' width='{self.width - 8:.1f}' "
            f"height='{self.height - 8:.1f}' fill='white' stroke='#ddd' rx='6'/>"
        )
        self.text(self.x + 16, self.y + 24, self.title, size=14, anchor="start", weight="bold")
        if subtitle:
            self.text(self.x + 16, self.y + 39, subtitle, size=10, anchor="start", color="#666")

    def y_axis(self, scale: Scale, unit: str) -> None:
        x0, _, x1, _ = self.plot
        for tick in scale.ticks():
            y = scale(tick)
            self.line(x0, y, x1, y, "#eee")
            self.text(x0 - 6, y + 4, _fmt(tick), size=10, anchor="end", color="#555")
        _, y0, _, y1 = self.plot
        self.text(self.x + 16, (y0 + y1) / 2, unit, size=10, color="#555", rotate=-90)

    def legend(self, names: Sequence[str], colors: Sequence[str]) -> None:
        x = self.x + self.width - self.right - 4
        y = self.y + 56
        for name, color in reversed(list(zip(names, colors, strict=True))):
            width = 7 * len(name) + 16
            x -= width
            self.rect(x, y - 9, 10, 10, color)
            self.text(x + 14, y, name, size=10, anchor="start")

    def svg(self) -> str:
        return "\n".join(self.parts)


def bars(
    panel: Panel,
    categories: Sequence[str],
    series: Sequence[tuple[str, Sequence[float]]],
    *,
    unit: str,
    log: bool = False,
    subtitle: str = "",
    hline: tuple[float, str] | None = None,
) -> None:
    """Grouped vertical bars, one group per category, a value label on each bar."""
    panel.frame(subtitle)
    x0, y0, x1, y1 = panel.plot
    values = [v for _, vs in series for v in vs] + ([hline[0]] if hline else [])
    scale = log_scale(values, y1, y0) if log else linear_scale(values, y1, y0)
    panel.y_axis(scale, unit)
    group = (x1 - x0) / max(len(categories), 1)
    width = group * 0.78 / max(len(series), 1)
    base = scale(scale.low)
    for i, category in enumerate(categories):
        gx = x0 + i * group + group * 0.11
        for j, (_, vs) in enumerate(series):
            value = vs[i]
            if not math.isfinite(value):
                panel.text(gx + (j + 0.5) * width, base - 4, "n/a", size=9, color="#999")
                continue
            top = scale(value)
            panel.rect(gx + j * width, top, width - 2, base - top, COLORS[j % len(COLORS)])
            panel.text(gx + (j + 0.5) * width, top - 3, _fmt(value), size=9)
        panel.text(x0 + (i + 0.5) * group, y1 + 15, category, size=10)
    if hline is not None:
        y = scale(hline[0])
        panel.line(x0, y, x1, y, "#cc3344", "5,3")
        panel.text(x0 + 4, y - 4, hline[1], size=10, anchor="start", color="#cc3344")
    panel.line(x0, base, x1, base, "#888")
    if len(series) > 1:
        panel.legend([name for name, _ in series], COLORS[: len(series)])


def hbars(
    panel: Panel,
    labels: Sequence[str],
    values: Sequence[float],
    *,
    unit: str,
    colors: Sequence[str],
    subtitle: str = "",
    notes: Sequence[str] = (),
) -> None:
    """Horizontal bars with their labels on the left and values (plus a note) on the right."""
    panel.left = 250
    panel.frame(subtitle)
    x0, y0, x1, y1 = panel.plot
    scale = linear_scale([v for v in values if math.isfinite(v)], x0, x1 - 90)
    row = (y1 - y0) / max(len(labels), 1)
    for tick in scale.ticks():
        x = scale(tick)
        panel.line(x, y0, x, y1, "#eee")
        panel.text(x, y1 + 14, _fmt(tick), size=10, color="#555")
    panel.text(panel.x + panel.width / 2, y1 + 30, unit, size=10, color="#555")
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        y = y0 + i * row
        panel.text(x0 - 6, y + row / 2 + 4, label, size=10, anchor="end")
        if not math.isfinite(value):
            panel.text(x0 + 4, y + row / 2 + 4, "not measured", size=10, anchor="start")
            continue
        end = scale(value)
        panel.rect(x0, y + row * 0.18, end - x0, row * 0.64, colors[i])
        note = notes[i] if i < len(notes) else ""
        panel.text(end + 4, y + row / 2 + 4, f"{_fmt(value)}{note}", size=10, anchor="start")
    panel.line(x0, y0, x0, y1, "#888")


def lines(
    panel: Panel,
    series: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    *,
    unit: str,
    x_unit: str,
    subtitle: str = "",
) -> None:
    """Log-log lines with markers."""
    panel.frame(subtitle)
    x0, y0, x1, y1 = panel.plot
    xs = [x for _, points in series for x, _ in points]
    ys = [y for _, points in series for _, y in points]
    sx = Scale(min(xs), max(xs), x0 + 14, x1 - 14, log=True)
    sy = log_scale(ys, y1, y0)
    panel.y_axis(sy, unit)
    for x in sorted(set(xs)):
        panel.text(sx(x), y1 + 15, f"{x:,.0f}", size=10, color="#555")
    panel.text((x0 + x1) / 2, y1 + 32, x_unit, size=10, color="#555")
    names, colors = [], []
    for index, (name, points) in enumerate(series):
        color = COLORS[index % len(COLORS)]
        coords = [(sx(x), sy(y)) for x, y in points]
        path = " ".join(
            f"{'M' if i == 0 else 'L'}{cx:.1f},{cy:.1f}" for i, (cx, cy) in enumerate(coords)
        )
        panel.parts.append(f"<path d='{path}' fill='none' stroke='{color}' stroke-width='2'/>")
        for (cx, cy), (_, y) in zip(coords, points, strict=True):
            panel.parts.append(
                f"<circle cx='{cx:.1f}' cy='{cy:.1f}' r='3.5' fill='{color}' stroke='{color}'/>"
            )
            below = index % 2 == 1
            panel.text(cx + 6, cy + (14 if below else -6), _fmt(y), size=9, anchor="start")
        names.append(name)
        colors.append(color)
    panel.line(x0, y1, x1, y1, "#888")
    panel.legend(names, colors)


def document(panels: Sequence[Panel], width: int, height: int, title: str, note: str) -> str:
    body = "\n".join(panel.svg() for panel in panels)
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}'>"
        f"<rect width='{width}' height='{height}' fill='#f6f7f9'/>"
        f"<text x='20' y='30' font-size='18' font-weight='bold' fill='#111' {FONT}>"
        f"{escape(title)}</text>"
        f"<text x='20' y='50' font-size='11' fill='#555' {FONT}>{escape(note)}</text>"
        f"{body}</svg>"
    )


def to_png(svg: str, width: int, height: int, path: Path, scale: float = 1.5) -> None:
    """Render ``svg`` to a PNG at ``path`` with headless Chromium."""
    from ._browser import chromium

    html = f"<!doctype html><html><body style='margin:0'>{svg}</body></html>"
    with chromium() as browser:
        context = browser.new_context(
            viewport={"width": width, "height": height}, device_scale_factor=scale
        )
        page = context.new_page()
        page.set_content(html)
        page.locator("svg").screenshot(path=str(path))
        context.close()
