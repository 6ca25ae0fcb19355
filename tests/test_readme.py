"""The README as a user reads it: short, a user's install apart from the contributors', the test
command the one CI runs, links that lead somewhere, and no lab notes (targets, run-to-run ranges,
history); figures and their method live in docs/benchmarks.md."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
CI = (ROOT / ".ci" / "run").read_text()


def _commands(text: str) -> list[str]:
    """Shell lines of the README's bash blocks."""
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_the_readme_is_short() -> None:
    assert len(README.splitlines()) < 300


def test_users_install_what_they_need_and_ci_runs_the_readmes_test_command() -> None:
    installs = [c for c in _commands(README) if "pip install" in c and "torch==2.13.0" in c]
    assert installs, "the README says how to install"
    user = installs[0]
    assert "[dev" not in user and "[ray" not in user, user  # extras are optional / for contributors
    ci_install = re.search(r"pip install -q (torch==2\.13\.0 -e '\.\[dev,ray\]')", CI)
    assert ci_install is not None, CI
    assert any(ci_install.group(1) in c for c in installs[1:]), "the contributors' install is CI's"
    ci_test = [line for line in CI.splitlines() if line.startswith(".venv/bin/python -m pytest")]
    assert len(ci_test) == 1 and ci_test[0].startswith(".venv/bin/python -m pytest -q"), ci_test
    assert any(c == ci_test[0] or c.startswith(ci_test[0] + " ") for c in _commands(README)), \
        "the README gives the test command CI runs"


def test_the_readme_has_no_lab_notes() -> None:
    for note in ("target", "varies from run to run", "previous release", "SQLite", "no real game was available"):
        assert note.lower() not in README.lower(), note


def test_the_readmes_links_lead_to_files() -> None:
    for link in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if not link.startswith("http"):
            assert (ROOT / link).exists(), link
