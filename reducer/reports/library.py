"""Whose failure it is: the library the program's failing call entered through, the one that raised, and where
to report it, for the summary and issue.md.

A failure that entered JAX through Flax or Optax may be that library's bug or JAX's; the reduced program keeps
the library's call by default (:class:`reducer.judging.signature.Signature`, ``pure_jax``), and this says so.
The project's issue tracker comes from the installed distribution's own metadata (its ``Project-URL``s), not
from a list kept here.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.metadata

from reducer.execution.outcome import Kind, Outcome
from reducer.judging.signature import entered_through
from reducer.search.lowering import libraries
from reprokit.localmodules import distributions, library_of

JAX_ISSUES = "https://github.com/jax-ml/jax/issues"


@dataclasses.dataclass(frozen=True)
class Whose:
    """``entered``: the library the original's failing call entered through ("" when it called JAX itself),
    by ``entry`` (its module); ``raised``: the library whose code raised ("jax", "flax"); ``report_to`` and
    ``url``: where the reduced program belongs; ``kept``: whether the reduced program still calls ``entered``."""

    entered: str
    entry: str
    raised: str
    report_to: str
    url: str
    kept: bool

    def line(self) -> str:
        """One line for the summary."""
        where = f"report it to {self.report_to}" + (f": {self.url}" if self.url else "")
        if not self.entered:
            return f"raised in {self.raised}; {where}"
        lowered = "" if self.kept else " (the result calls JAX alone: --pure-jax)"
        return f"entered through {self.entered} ({self.entry}), raised in {self.raised}{lowered}; {where}"

    def paragraph(self) -> str:
        """issue.md's section: whose call failed, and why the program still makes it."""
        text = self.line()
        text = text[0].upper() + text[1:] + "."
        if self.entered and self.kept and self.raised == "jax":
            text += (f" The program still calls {self.entered}, since the failure came through it; "
                     f"`jax-reduce --pure-jax` reduces it to JAX alone, for a report to JAX ({JAX_ISSUES}).")
        return text


def raised_in(outcome: Outcome) -> str:
    """The library whose code raised: the exception type's own ("flax" for flax.errors.*), else that of the
    raising site; "jax" for JAX's, "the program" for its own."""
    module = outcome.exc_type.rpartition(".")[0]
    library = library_of(module) if module else library_of(outcome.site_module)
    if library:
        return library
    return "the program" if outcome.site_module.startswith("<") else "jax"


def whose(original: Outcome, result: str) -> Whose | None:
    """What to say of a reduction whose original failed with ``original`` and whose reduced program is
    ``result``: None when neither the entry nor the raising site is another library (a JAX bug report)."""
    if original.kind is not Kind.EXCEPTION:
        return None
    entered, raised = entered_through(original), raised_in(original)
    if not entered and raised in ("jax", "the program"):
        return None
    kept = bool(entered) and entered in libraries(result)
    owner = raised if raised not in ("jax", "the program") else (entered if kept else "jax")
    url = JAX_ISSUES if owner == "jax" else issue_tracker(owner)
    return Whose(entered, original.entry if entered else "", raised, owner, url, kept)


@functools.cache
def issue_tracker(package: str) -> str:
    """The issue tracker of the installed distribution providing ``package``, from its metadata: a
    ``Project-URL`` named for issues or bugs, else its GitHub repository's /issues, else its home page; ""
    when it names none."""
    urls: list[str] = []
    for distribution in distributions(package):
        try:
            metadata = importlib.metadata.metadata(distribution)
        except importlib.metadata.PackageNotFoundError:
            continue
        for entry in metadata.get_all("Project-URL") or []:
            label, _, url = entry.partition(",")
            if any(word in label.lower() for word in ("issue", "bug", "tracker")):
                return url.strip()
            urls.append(url.strip())
        urls.append(metadata.get("Home-page") or "")
    for url in urls:
        if url.startswith(("https://github.com/", "http://github.com/")) and url.count("/") == 4:
            return url.replace("http://", "https://").rstrip("/") + "/issues"
    return next((url for url in urls if url), "")
