"""hitl-client: the Python client of hitl, a human in the loop of AI agents.

    from hitl import Client
    c = Client()                       # HITL_URL, HITL_TOKEN
    db = c.ask("Which database?", options=["prod", "staging"])
    d = c.request_approval("Drop table users", op_type="db", resource="users")
    if d.allowed: ...

Adapters for agent frameworks live in ``hitl.integrations``.
"""

from ._async_client import AsyncClient
from ._client import Client
from ._errors import HitlError
from ._models import Checkpoint, Decision, Event, PolicyDecision, Question
from ._webhooks import verify_webhook

__all__ = [
    "AsyncClient",
    "Checkpoint",
    "Client",
    "Decision",
    "Event",
    "HitlError",
    "PolicyDecision",
    "Question",
    "verify_webhook",
]
__version__ = "0.1.0"
