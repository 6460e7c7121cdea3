"""File diffs computed on the agent's machine, where the file is: what a
file-writing tool call would do to the file as it is now, as the unified
diff hitl shows the person who approves it (docs/diffs.md). The same shape
and rules as hitl's Claude Code hook (mcp/filediff.go): 3 lines of context,
``a/PATH`` and ``b/PATH`` headers (``/dev/null`` for a new file), the counts
of the whole diff; a file that cannot be shown gets a ``problem`` instead."""

from __future__ import annotations

import difflib
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

MAX_FILE_BYTES = 8 << 20
"""A file larger than this is not read for a diff (the diff says so)."""

MAX_DIFF_BYTES = 256 << 10
"""The service's bound on one operation's diffs (policy.MaxDiffBytes): a longer diff is cut at a line end."""

CONTEXT = 3
NO_NEWLINE = "\\ No newline at end of file"


def absolute(path: str, cwd: Optional[str]) -> str:
    """path placed in cwd (the agent's working directory), as the tool will find it."""
    if not path or os.path.isabs(path):
        return path
    return os.path.normpath(os.path.join(cwd or os.getcwd(), path))


def current(path: str) -> Tuple[str, bool, str]:
    """(content, exists, problem) of the file at path now."""
    if not path:
        return "", False, "the call names no file"
    try:
        if os.path.isdir(path):
            return "", True, f"{path} is a directory"
        if os.path.getsize(path) > MAX_FILE_BYTES:
            return "", True, f"the file is larger than {MAX_FILE_BYTES >> 20} MiB: no diff"
        with open(path, "rb") as f:
            b = f.read()
    except FileNotFoundError:
        return "", False, ""
    except OSError as e:
        return "", True, f"cannot read the file: {e.strerror or e}"
    if b"\x00" in b:
        return "", True, "a binary file: no diff"
    try:
        return b.decode("utf-8"), True, ""
    except UnicodeDecodeError:
        return "", True, "not UTF-8 text: no diff"


def write_diff(path: str, content: str) -> Dict[str, Any]:
    """The diff of writing content to the file at path (absolute): a new file, or its change."""
    d: Dict[str, Any] = {"path": path, "change": "modify", "added": 0, "removed": 0}
    old, exists, problem = current(path)
    if problem:
        return {**d, "problem": problem}
    if not exists:
        d["change"] = "new"
    return _diff_of(d, old, content)


def edit_diff(path: str, edits: Sequence[Tuple[str, str, bool]]) -> Dict[str, Any]:
    """The diff of Claude Code's Edit / MultiEdit: each (old_string, new_string,
    replace_all) in turn, refused as Claude Code refuses it."""
    d: Dict[str, Any] = {"path": path, "change": "modify", "added": 0, "removed": 0}
    old, exists, problem = current(path)
    if problem:
        return {**d, "problem": problem}
    content = old
    for i, (o, n, every) in enumerate(edits):
        which = f"edit {i + 1}: " if len(edits) > 1 else ""
        count = content.count(o) if o else 0
        if not exists and i == 0 and o == "":
            d["change"], content = "new", n
            continue
        if not exists:
            return {**d, "problem": "the file does not exist"}
        if o == "" and content == "":
            content = n
        elif o == "":
            return {**d, "problem": which + "old_string is empty but the file is not: Claude Code will refuse the edit"}
        elif o == n:
            return {**d, "problem": which + "old_string and new_string are the same: nothing changes"}
        elif count == 0:
            return {**d, "problem": which + "old_string is not in the file"}
        elif count > 1 and not every:
            return {**d, "problem": f"{which}old_string is in the file {count} times and replace_all is false: Claude Code will refuse the edit"}
        else:
            content = content.replace(o, n) if every else content.replace(o, n, 1)
    return _diff_of(d, old, content)


def _diff_of(d: Dict[str, Any], old: str, new: str) -> Dict[str, Any]:
    path = str(d["path"])
    slashed = path if path.startswith("/") else "/" + path
    text, added, removed = unified("/dev/null" if d["change"] == "new" else "a" + slashed, "b" + slashed, old, new)
    if not text:
        if d["change"] == "modify":
            return {**d, "problem": "no change: the file already has this content"}
        return d
    d = {**d, "added": added, "removed": removed, "unified": text}
    if len(text.encode()) > MAX_DIFF_BYTES:
        d["unified"], d["truncated"] = _cut(text, MAX_DIFF_BYTES), True
    return d


def _cut(text: str, limit: int) -> str:
    b = text.encode()[:limit]
    return b[: b.rfind(b"\n") + 1].decode("utf-8", "ignore")


def unified(old_name: str, new_name: str, old: str, new: str) -> Tuple[str, int, int]:
    """The unified diff of old against new (3 lines of context), and its lines added and removed; "" when equal."""
    a, b = _lines(old), _lines(new)
    out: List[str] = []
    added = removed = 0
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(CONTEXT):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_span(i1, i2 - i1)} +{_span(j1, j2 - j1)} @@\n")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out.extend(_line(" ", s) for s in a[x1:x2])
                continue
            if tag in ("replace", "delete"):
                out.extend(_line("-", s) for s in a[x1:x2])
                removed += x2 - x1
            if tag in ("replace", "insert"):
                out.extend(_line("+", s) for s in b[y1:y2])
                added += y2 - y1
    if not out:
        return "", 0, 0
    return f"--- {old_name}\n+++ {new_name}\n" + "".join(out), added, removed


def _lines(s: str) -> List[str]:
    """s split after each \\n only (str.splitlines also splits at \\r and others, which a unified diff does not)."""
    out = s.split("\n")
    last = out.pop()
    return [x + "\n" for x in out] + ([last] if last else [])


def _span(start: int, n: int) -> str:
    if n == 1:
        return str(start + 1)
    return f"{start},0" if n == 0 else f"{start + 1},{n}"


def _line(mark: str, s: str) -> str:
    return mark + s if s.endswith("\n") else f"{mark}{s}\n{NO_NEWLINE}\n"
