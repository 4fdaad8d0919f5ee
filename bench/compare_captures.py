#!/usr/bin/env python3
"""Compare two protocol captures (``bench/capture_protocol.py --json FILE``) of different commits.

    .venv/bin/python bench/compare_captures.py BEFORE.json AFTER.json [--added kind,options]

Prints every difference between the captures except fields that differ from run to run
(tokens, times, cookies) and the fields named by ``--added`` where AFTER has them and BEFORE
does not. Exits 1 when there is any other difference. The capture's seeded game replays the
same moves on both commits; a game the capture creates without a seed (its "aborted" example)
is dealt at random and differs between any two runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

VOLATILE = {"created", "at", "token", "turn_deadline", "started", "finished"}
VOLATILE |= {"Location", "Set-Cookie", "csrftoken"}


def differences(before: object, after: object, added: set[str], path: str = "") -> list[str]:
    if type(before) is not type(after):
        return [f"{path}: {before!r} -> {after!r}"]
    if isinstance(before, dict):
        found = []
        for key in sorted(set(before) | set(after), key=str):
            where = f"{path}/{key}"
            if key in VOLATILE:
                continue
            if key not in after:
                found.append(f"{where}: dropped")
            elif key not in before:
                if key not in added:
                    found.append(f"{where}: added {after[key]!r}")
            else:
                found += differences(before[key], after[key], added, where)
        return found
    if isinstance(before, list):
        found = [] if len(before) == len(after) else [f"{path}: {len(before)} -> {len(after)}"]
        for i, (old, new) in enumerate(zip(before, after, strict=False)):
            found += differences(old, new, added, f"{path}[{i}]")
        return found
    return [] if before == after else [f"{path}: {before!r} -> {after!r}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--added", default="kind,options", help="fields AFTER may add")
    args = parser.parse_args()
    before = json.loads(args.before.read_text())
    after = json.loads(args.after.read_text())
    labels = [label for label, _ in before]
    if labels != [label for label, _ in after]:
        print("the captures do not have the same examples in the same order")
        return 1
    found = []
    for (label, old), (_, new) in zip(before, after, strict=True):
        found += [f"{label}: {line}" for line in differences(old, new, set(args.added.split(",")))]
    print("\n".join(found) or "no differences")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
