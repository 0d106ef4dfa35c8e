"""The README stays short, every docs page is findable, and no relative link in the docs is broken.

Why: the README was a 38 KB manual whose topics later moved into ``docs/``; without a check it grows
back, a new page goes unlisted in ``docs/README.md`` (the index the README points to), and a page
renamed or moved leaves links (and images under ``docs/figures``) pointing at nothing. Links are
read from the Markdown itself, outside fenced code blocks; a link with an anchor must also name a
heading of its target, as GitHub spells heading anchors.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README_LIMIT_BYTES = 12 * 1024

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_pages(root: Path) -> list[Path]:
    """The Markdown pages whose links are checked: the top-level guides and everything in docs/."""
    tops = [root / name for name in ("README.md", "CONTRIBUTING.md") if (root / name).is_file()]
    return tops + sorted((root / "docs").rglob("*.md"))


def _prose_lines(text: str) -> list[str]:
    """The lines of a Markdown text outside fenced code blocks (a link in code is an example)."""
    lines, in_code = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            in_code = not in_code
        elif not in_code:
            lines.append(line)
    return lines


def relative_links(text: str) -> list[str]:
    """The link targets of a page that point inside the repository or the page itself (not http, mailto)."""
    found = []
    for line in _prose_lines(text):
        line = re.sub(r"`[^`]*`", "", line)  # a code span may hold brackets that are not a link
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            found.append(target)
    return found


def heading_anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    anchors = set()
    for line in _prose_lines(text):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            slug = re.sub(r"[^\w\- ]", "", match.group(1).lower()).replace(" ", "-")
            anchors.add(slug)
    return anchors


def broken_links(root: Path) -> list[str]:
    """Every relative link of the checked pages whose file, or heading anchor, does not exist."""
    broken = []
    for page in markdown_pages(root):
        for target in relative_links(page.read_text(encoding="utf-8")):
            path_part, _, anchor = target.partition("#")
            dest = (page.parent / path_part).resolve() if path_part else page
            where = f"{page.relative_to(root).as_posix()}: {target}"
            if not dest.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in heading_anchors(dest.read_text("utf-8")):
                broken.append(f"{where} (no heading with that anchor)")
    return broken


def unlisted_pages(root: Path) -> list[str]:
    """docs pages that docs/README.md, the index, does not link to."""
    index = root / "docs" / "README.md"
    listed = {
        (index.parent / t.partition("#")[0]).resolve() for t in relative_links(index.read_text("utf-8"))
    }
    pages = [p for p in (root / "docs").rglob("*.md") if p != index]
    return sorted(p.relative_to(root).as_posix() for p in pages if p.resolve() not in listed)


def test_the_readme_is_at_most_12_kb():
    size = (ROOT / "README.md").stat().st_size
    assert size <= README_LIMIT_BYTES, f"README.md is {size} bytes; move detail into a docs/ page"


def test_every_docs_page_is_listed_in_the_docs_index():
    assert unlisted_pages(ROOT) == [], "list these pages in docs/README.md"


def test_the_readme_points_to_the_docs_index():
    assert "docs/README.md" in relative_links((ROOT / "README.md").read_text(encoding="utf-8"))


def test_every_relative_link_points_to_an_existing_file():
    assert broken_links(ROOT) == []


def _page(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_the_checks_find_a_broken_link_a_bad_anchor_and_an_unlisted_page(tmp_path):
    """A small tree with one fault of each kind: each is named; links in code are not read."""
    _page(tmp_path, "README.md", "See [the docs](docs/README.md) and ![a figure](docs/figures/gone.png).\n")
    _page(tmp_path, "docs/README.md", "- [a](a.md)\n")
    _page(
        tmp_path,
        "docs/a.md",
        "# A page\n\n## The words: `pass` and fail\n\n"
        "[ok](#the-words-pass-and-fail), [bad](b.md#nowhere), [gone](../missing.md), [here](#no)\n\n"
        "```\n[in code](nowhere.md)\n```\n\nAnd `[span](nowhere.md)`.\n",
    )
    _page(tmp_path, "docs/b.md", "# B\n\n## Somewhere\n")
    assert broken_links(tmp_path) == [
        "README.md: docs/figures/gone.png (no such file)",
        "docs/a.md: b.md#nowhere (no heading with that anchor)",
        "docs/a.md: ../missing.md (no such file)",
        "docs/a.md: #no (no heading with that anchor)",
    ]
    assert unlisted_pages(tmp_path) == ["docs/b.md"]
