"""The published shape: `pip install ./clients/python` into a clean virtualenv, then import hitl."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

from conftest import REPO


def test_the_package_installs_into_a_clean_venv_and_imports(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(REPO / "clients" / "python")], check=True)
    (whl,) = wheels.glob("*.whl")
    assert whl.name.startswith("hitl_client-0.1.0-py3-none-any")
    names = zipfile.ZipFile(whl).namelist()
    assert "hitl/py.typed" in names and "hitl/integrations/langgraph.py" in names
    assert not [n for n in names if "test" in n.split("/")[0]]
    meta = zipfile.ZipFile(whl).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "Name: hitl-client" in meta
    runtime = [l for l in meta.splitlines() if l.startswith("Requires-Dist:") and "extra ==" not in l]
    assert runtime == ["Requires-Dist: httpx<1,>=0.27"]  # httpx, the one runtime dependency

    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    py = env / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(REPO / "clients" / "python")], check=True)
    out = subprocess.run([str(py), "-c", "import hitl, hitl.integrations.langgraph, hitl.integrations.openai_agents, hitl.integrations.claude_agent_sdk; "
                          "print(hitl.__file__); print(sorted(hitl.__all__))"], check=True, capture_output=True, text=True, cwd=tmp_path).stdout
    assert str(env) in out.splitlines()[0]  # the installed copy, not the source tree
    assert "'Client'" in out and "'HitlError'" in out and "'verify_webhook'" in out
    # the adapters import their frameworks only when used: without them, a clear ImportError
    err = subprocess.run([str(py), "-c", "from hitl.integrations.claude_agent_sdk import can_use_tool; from hitl import AsyncClient; can_use_tool(AsyncClient('http://127.0.0.1:1'))"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert err.returncode != 0 and "claude_agent_sdk" in err.stderr
