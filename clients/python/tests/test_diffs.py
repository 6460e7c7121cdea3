"""The adapters' diffs (hitl.integrations._diff) as the real service checks them:
random old and new files, each diff accepted (its headers, hunks and counts
agree: the service refuses one that does not, 400 invalid) and its counts the
lines that changed."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from conftest import AGENT_TOKEN, Server
from hitl.integrations import _diff

WORDS = ["a", "b", "c", "", "  x", "same", "z\r", "ü"]


def text(rng: random.Random) -> str:
    s = "\n".join(rng.choice(WORDS) for _ in range(rng.randint(0, 30)))
    return s + ("\n" if rng.random() < 0.7 and s else "")


@pytest.mark.parametrize("seed", range(40))
def test_the_service_accepts_every_diff(server: Server, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    old, new = text(rng), text(rng)
    path = tmp_path / "f.txt"
    if seed % 5:
        path.write_text(old, newline="")
    d = _diff.write_diff(str(path), new)
    if "problem" in d:
        assert d["problem"] == "no change: the file already has this content" and old == new
        return
    assert d["added"] + d["removed"] > 0
    body = {"opType": "file_write", "operation": "Write f.txt", "resource": str(path), "diffs": [d], "cwd": str(tmp_path)}
    out = server.api("POST", "/api/policy/check", token=AGENT_TOKEN, body=body)  # 400 if the service finds the diff wrong
    assert out["decision"] == "ask"
    # and it is the change: applying it to the old file with patch(1) (.ci/run installs it) gives the new one
    work = tmp_path / "work.txt"
    work.write_text(old if seed % 5 else "", newline="")
    got = subprocess.run(["patch", "-s", "-u", str(work)], input=d["unified"].encode(), capture_output=True, timeout=30)
    assert got.returncode == 0, got.stderr
    assert work.read_bytes() == new.encode()


def test_a_diff_that_disagrees_with_its_counts_is_refused(server: Server, tmp_path: Path) -> None:
    """The check above can fail: the service refuses a diff whose counts are wrong."""
    d = _diff.write_diff(str(tmp_path / "f.txt"), "a\nb\n")
    body = {"opType": "file_write", "operation": "Write f.txt", "resource": str(tmp_path / "f.txt"), "diffs": [{**d, "added": 3}]}
    with pytest.raises(AssertionError, match="400.*counts"):
        server.api("POST", "/api/policy/check", token=AGENT_TOKEN, body=body)
