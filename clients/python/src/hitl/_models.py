"""Typed results of the client's calls, built from the API's JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Literal, Mapping, Optional

Outcome = Literal["approved", "denied", "edited", "responded", "timed_out"]
Effect = Literal["allow", "ask", "deny"]


@dataclass(frozen=True)
class Question:
    """A question as the API returns it (``raw``), with its main fields."""

    id: str
    run: str
    status: str
    raw: Mapping[str, Any] = field(repr=False)

    @property
    def response(self) -> Optional[Mapping[str, Any]]:
        r = self.raw.get("response")
        return r if isinstance(r, dict) else None

    @staticmethod
    def of(raw: Mapping[str, Any]) -> "Question":
        return Question(id=str(raw.get("id", "")), run=str(raw.get("jobId", "")), status=str(raw.get("status", "")), raw=raw)


@dataclass(frozen=True)
class Decision:
    """How an approval request was decided, by the policy or by a person.

    ``outcome`` is ``approved``, ``edited`` (approved with the input changed:
    use ``edited_input``), ``denied`` (``reason``), ``responded`` (not approved:
    the person replied in words instead, ``message`` is what they want the
    agent to do) or ``timed_out``. ``by`` is who decided: ``"policy"`` when the
    policy did (``rule`` names the rule), the
    person's principal (``api:alice``, ``slack:U…``) otherwise.
    """

    outcome: Outcome
    message: str = ""
    reason: str = ""
    edited_input: Any = None
    by: str = ""
    question_id: str = ""
    rule: str = ""
    always: bool = False

    @property
    def allowed(self) -> bool:
        """The operation may run (as asked, or with ``edited_input``)."""
        return self.outcome in ("approved", "edited")


@dataclass(frozen=True)
class PolicyDecision:
    """What the policy decides about an operation, asking nobody."""

    decision: Effect
    rule: str
    approvers: List[str] = field(default_factory=list)
    quorum: int = 0
    learnable: bool = False
    parts: List[Mapping[str, Any]] = field(default_factory=list)

    @staticmethod
    def of(raw: Mapping[str, Any]) -> "PolicyDecision":
        d = str(raw.get("decision", "ask"))
        effect: Effect = "allow" if d == "allow" else "deny" if d == "deny" else "ask"
        return PolicyDecision(
            decision=effect,
            rule=str(raw.get("rule", "")),
            approvers=list(raw.get("approvers") or []),
            quorum=int(raw.get("quorum") or 0),
            learnable=bool(raw.get("learnable", False)),
            parts=list(raw.get("parts") or []),
        )


@dataclass(frozen=True)
class Checkpoint:
    """What a loop learns at an iteration boundary (seed 000's steering)."""

    run: str
    status: str
    model: str = ""
    new_model: str = ""
    instruction: str = ""
    reason: str = ""
    version: int = 0

    @staticmethod
    def of(raw: Mapping[str, Any]) -> "Checkpoint":
        return Checkpoint(
            run=str(raw.get("runId", "")),
            status=str(raw.get("status", "")),
            model=str(raw.get("model", "")),
            new_model=str(raw.get("newModel", "")),
            instruction=str(raw.get("instruction", "")),
            reason=str(raw.get("reason", "")),
            version=int(raw.get("version") or 0),
        )


@dataclass(frozen=True)
class Event:
    """One Server-Sent Event of ``GET /api/events``: its id (for resuming), type and data."""

    id: str
    type: str
    data: Mapping[str, Any]
