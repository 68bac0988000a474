"""The documentation: the site builds strictly (every link and anchor between pages checked), the README's
links land on pages and headings that exist, and the examples the docs show are what the commands give."""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from reducer.program.provenance import header_of

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    return out


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(value for name, value in attrs if name == "id" and value)


def ids_of(page: Path) -> set[str]:
    parser = _Ids()
    parser.feed(page.read_text())
    return parser.ids


def test_the_site_builds_strictly_with_every_page(site):
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert [p for p in pages if not (site / ("" if p == "index.md" else p[:-3]) / "index.html").exists()] == []


def test_the_readmes_links_land_on_pages_and_headings_that_exist(site):
    links = re.findall(r"\]\(((?!https?:)[^)#]+)(?:#([^)]+))?\)", README)
    assert links, "the README links to the docs"
    for target, anchor in links:
        assert (ROOT / target).exists(), target
        if anchor:
            page = site / Path(target).relative_to("docs").with_suffix("") / "index.html"
            page = site / "index.html" if target == "docs/index.md" else page
            assert anchor in ids_of(page), (target, anchor)


def readme_program() -> str:
    """The reduced program the quick start shows, below its provenance header."""
    block = re.search(r"```python\n(# Reduced by jax-reduce .*?)```", README, re.DOTALL).group(1)
    return block[len(header_of(block)):]


@pytest.mark.e2e
def test_the_quick_start_shows_what_its_command_writes(tmp_path):
    out = tmp_path / "train_mlp.reduced.py"
    done = subprocess.run([sys.executable, "-m", "reducer", "examples/train_mlp.py", "-o", str(out), "--quiet"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    written = out.read_text()
    assert written[len(header_of(written)):] == readme_program()


@pytest.mark.e2e
def test_the_library_api_example_runs_as_shown(tmp_path):
    api = (ROOT / "docs" / "api.md").read_text()
    example = re.search(r"```python\n(import reducer\n.*?)```", api, re.DOTALL).group(1)
    (tmp_path / "repro.py").write_text((ROOT / "examples" / "train_mlp.py").read_text())
    done = subprocess.run([sys.executable, "-c", example], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert readme_program().strip() in done.stdout  # print(result.source)
    assert (tmp_path / "repro.issue.md").exists() and (tmp_path / "repro.reduced.py").exists()
