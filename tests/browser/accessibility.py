"""The accessibility audit: axe-core (vendored, tests/browser/vendor) run in the page
under test against WCAG 2.1 A and AA, the success criteria JIS X 8341-3 takes over.
A violation of impact serious or critical fails the test that found it; moderate and
minor ones are written to the report (REPORT), and each one left must be named in the
README's Accessibility section with why, or it fails too."""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

AXE_SOURCE = Path(__file__).parent / "vendor" / "axe-core-4.14.1" / "axe.min.js"

# The rules of WCAG 2.0 and 2.1, levels A and AA, and axe's best practices, which
# include the landmarks, the page heading and a skip link's target.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
FAILING = ("serious", "critical")

ROOT = Path(__file__).resolve().parents[2]
# Where the moderate and minor findings go: one JSON line each, this run's only.
REPORT = Path(os.environ.get("A11Y_REPORT", ROOT / "build" / "accessibility-report.jsonl"))
README = ROOT / "README.md"
_reported: list[Path] = []  # the report this process has started


@dataclass(frozen=True)
class Finding:
    page: str  # what the test calls the page: its path, language, role and width
    rule: str
    impact: str
    help: str
    targets: tuple[str, ...]  # CSS selectors of the first few nodes

    def line(self) -> str:
        where = ", ".join(self.targets)
        return f"{self.page}: [{self.impact}] {self.rule}: {self.help} ({where})"


def audit(page, name: str) -> list[Finding]:
    """Every finding of axe on the page as it is now, named `name`."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SOURCE.read_text(encoding="utf-8"))
    results = page.evaluate(
        """async (tags) => {
            const result = await axe.run(document, {runOnly: {type: "tag", values: tags}});
            return result.violations.map(v => ({
                rule: v.id, impact: v.impact || "minor", help: v.help,
                targets: v.nodes.slice(0, 3).map(n => n.target.join(" ")),
            }));
        }""",
        TAGS,
    )
    return [Finding(name, r["rule"], r["impact"], r["help"], tuple(r["targets"])) for r in results]


@cache
def named_in_readme() -> frozenset[str]:
    """The rules the README's Accessibility section names as left, with why: its list
    items that start with a rule's id in backticks."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Accessibility", 1)[1].split("\n## ", 1)[0]
    return frozenset(re.findall(r"^- `([a-z0-9-]+)`", section, flags=re.MULTILINE))


def not_allowed(findings: list[Finding]) -> list[Finding]:
    """What fails: a serious or critical violation, or a lesser one the README does not
    name."""
    return [f for f in findings if f.impact in FAILING or f.rule not in named_in_readme()]


def keep_in_report(findings: list[Finding]) -> None:
    """The findings that do not fail a test, for the README's list; the report holds
    this run's (the first write of a process starts it anew)."""
    kept = [f for f in findings if f.impact not in FAILING]
    if REPORT not in _reported:
        REPORT.parent.mkdir(parents=True, exist_ok=True)
        REPORT.write_text("", encoding="utf-8")
        _reported.append(REPORT)
    with REPORT.open("a", encoding="utf-8") as report:
        for finding in kept:
            report.write(json.dumps(asdict(finding), ensure_ascii=False) + "\n")
