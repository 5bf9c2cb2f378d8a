"""A small server-side line chart (inline SVG) for daily impressions and clicks."""

from __future__ import annotations

from dataclasses import dataclass

WIDTH, HEIGHT, PAD = 720, 220, 28


@dataclass(frozen=True)
class Line:
    name: str
    points: str  # SVG polyline points
    peak: int


def daily_lines(daily: list[dict]) -> dict:
    """Polylines of impressions and clicks, each scaled to its own peak (clicks are far
    fewer than impressions and would otherwise lie flat)."""
    if not daily:
        return {"width": WIDTH, "height": HEIGHT, "lines": [], "first": "", "last": ""}
    step = (WIDTH - 2 * PAD) / max(1, len(daily) - 1)
    lines = []
    for key in ("impressions", "clicks"):
        values = [int(day[key]) for day in daily]
        peak = max(values) or 1
        points = " ".join(
            f"{PAD + i * step:.1f},{HEIGHT - PAD - (v / peak) * (HEIGHT - 2 * PAD):.1f}"
            for i, v in enumerate(values)
        )
        lines.append(Line(key, points, max(values)))
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "lines": lines,
        "first": daily[0]["date"],
        "last": daily[-1]["date"],
    }
