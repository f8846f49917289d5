"""A small SVG writer for `tirxc info --svg` and `tirxc layout --svg`.

Only what the pictures need: rectangles, text and lines on a pixel grid. The
output is deterministic (attributes in a fixed order, numbers printed the same
way every run) and every text is XML-escaped, so names from a .tx file cannot
break the document.
"""
from __future__ import annotations

import colorsys
from xml.sax.saxutils import escape, quoteattr

FONT = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"


def _num(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


class Svg:
    def __init__(self, width: float, height: float, title: str | None = None):
        self.width = width
        self.height = height
        self._items: list[str] = []
        if title:
            self._items.append(f"<title>{escape(title)}</title>")

    def rect(self, x: float, y: float, w: float, h: float, *, fill: str = "none",
             stroke: str = "#333", stroke_width: float = 1, title: str | None = None) -> None:
        attrs = (f'x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" '
                 f'fill={quoteattr(fill)} stroke={quoteattr(stroke)} stroke-width="{_num(stroke_width)}"')
        if title:
            self._items.append(f"<rect {attrs}><title>{escape(title)}</title></rect>")
        else:
            self._items.append(f"<rect {attrs}/>")

    def text(self, x: float, y: float, text: str, *, size: float = 12, anchor: str = "start",
             fill: str = "#000", weight: str = "normal") -> None:
        self._items.append(
            f'<text x="{_num(x)}" y="{_num(y)}" font-size="{_num(size)}" text-anchor={quoteattr(anchor)} '
            f'fill={quoteattr(fill)} font-weight={quoteattr(weight)}>{escape(text)}</text>')

    def line(self, x1: float, y1: float, x2: float, y2: float, *, stroke: str = "#333",
             stroke_width: float = 1, dash: str | None = None) -> None:
        extra = f' stroke-dasharray={quoteattr(dash)}' if dash else ""
        self._items.append(
            f'<line x1="{_num(x1)}" y1="{_num(y1)}" x2="{_num(x2)}" y2="{_num(y2)}" '
            f'stroke={quoteattr(stroke)} stroke-width="{_num(stroke_width)}"{extra}/>')

    def hatch(self, pattern_id: str, stroke: str = "#888", background: str = "#FFF") -> str:
        """Define a diagonal hatch; returns the fill that paints with it (`url(#id)`)."""
        self._items.append(
            f'<defs><pattern id={quoteattr(pattern_id)} width="6" height="6" patternUnits="userSpaceOnUse" '
            f'patternTransform="rotate(45)"><rect width="6" height="6" fill={quoteattr(background)}/>'
            f'<line x1="0" y1="0" x2="0" y2="6" stroke={quoteattr(stroke)} stroke-width="2"/></pattern></defs>')
        return f"url(#{pattern_id})"

    def render(self) -> str:
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(self.width)}" '
                f'height="{_num(self.height)}" viewBox="0 0 {_num(self.width)} {_num(self.height)}" '
                f'font-family={quoteattr(FONT)}>')
        return "\n".join([head, *("  " + item for item in self._items), "</svg>", ""])


# A palette that stays readable in print and for common colour-vision deficiencies
# (Okabe-Ito); pictures cycle through it in declaration order.
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999")


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def hue(index: int) -> str:
    """A light fill for the index-th of many classes (banks, owning threads) under black
    text: successive indices step the hue by the golden angle, so that neighbours differ
    clearly however many classes there are."""
    red, green, blue = colorsys.hls_to_rgb((index * 0.381966) % 1.0, 0.78, 0.65)
    return "#" + "".join(f"{round(part * 255):02X}" for part in (red, green, blue))
