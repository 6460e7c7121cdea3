"""What a person reads of a question: `hitl show` (the real CLI, against the real service)."""

from __future__ import annotations

import os
import subprocess

from conftest import ALICE_TOKEN, Server


def show(server: Server, qid: str) -> str:
    """`hitl show QID` as a person runs it (no colour)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HITL_")}
    env.update({"HITL_URL": server.url, "HITL_TOKEN": ALICE_TOKEN, "NO_COLOR": "1"})
    out = subprocess.run([server.binary, "show", "--color", "never", qid], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def block(key: str, text: str) -> str:
    """How `hitl show` prints a multi-line input value: its key, then each line in a block."""
    return f"\n{key}:\n" + "".join(f"  │ {line}\n" for line in text.split("\n"))
