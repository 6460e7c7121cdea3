"""Adapters from agent frameworks' human-in-the-loop pauses to hitl.

- ``hitl.integrations.langgraph``: LangGraph / LangChain ``HumanInTheLoopMiddleware``
  and ``interrupt()`` (``pip install "hitl-client[langgraph]"``).
- ``hitl.integrations.openai_agents``: the OpenAI Agents SDK's ``needs_approval`` and
  ``RunState`` (``pip install "hitl-client[openai-agents]"``).
- ``hitl.integrations.claude_agent_sdk``: the Claude Agent SDK's ``can_use_tool``
  (``pip install "hitl-client[claude-agent-sdk]"``).

Each sends hitl the tool's name, its exact input (the operation's resource, as
JSON) and the agent's description, in the agent's run; hitl's policy decides
first, then a person.
"""
