"""stepped passes the conformance kit that every dice system runs."""

from pathlib import Path

from referee.systems.stepped.system import SYSTEM
from referee.testing.conformance import check_system


def test_stepped_passes_the_conformance_kit(tmp_path: Path) -> None:
    """Help and a resolving example per verb, exact odds against 100,000 rolls, rulings."""
    report = check_system(SYSTEM, tmp_path)
    assert ([], {verb.name for verb in SYSTEM.verbs}) == (report.problems, set(report.examples))
