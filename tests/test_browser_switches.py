"""The browser tests' Chromium switches (tests/e2e/conftest.py) keep what Playwright's own
launch turns off: Chromium reads only the last ``--disable-features`` switch, and ours comes
after Playwright's."""

from __future__ import annotations

import re
from pathlib import Path

import playwright

from tests.e2e.conftest import PLAYWRIGHT_DISABLED_FEATURES

DRIVER_LIB = Path(playwright.__file__).parent / "driver" / "package" / "lib"
DISABLED_LIST = re.compile(r"disabledFeatures = \[(.*?)\]", re.DOTALL)
NAME = re.compile(r'^\s*"([^"]+)",?\s*$', re.MULTILINE)


def playwrights_disabled_features() -> set[str]:
    """The names in Playwright's ``disabledFeatures`` list, as its bundled driver has it."""
    for script in sorted(DRIVER_LIB.rglob("*.js")):
        text = script.read_text(encoding="utf-8", errors="replace")
        found = DISABLED_LIST.search(text)
        if found is not None and "chromiumSwitches" in text:
            return set(NAME.findall(found.group(1)))
    raise AssertionError(f"no disabledFeatures list in Playwright's driver ({DRIVER_LIB})")


def test_the_browser_tests_switch_repeats_every_feature_playwright_turns_off():
    theirs = playwrights_disabled_features()
    assert "PaintHolding" in theirs  # the list was read, not something else
    assert theirs == set(PLAYWRIGHT_DISABLED_FEATURES), (
        "Playwright's launch turns off other features now: copy its list into"
        " PLAYWRIGHT_DISABLED_FEATURES (tests/e2e/conftest.py)"
    )
