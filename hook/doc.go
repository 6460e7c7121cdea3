// Package hook is what hitl's coding-agent hooks (hitl hook claude, hitl
// hook codex) run on the agent's machine, shared with hitl gate and the
// MCP server (mcp), which run there too:
//
//   - claude.go: Claude Code's and Codex's tool calls (ToolCall) read as
//     the policy's operations, and a person's edit put back in the field
//     the tool reads;
//   - filediff.go, patch.go: the diff of the files a call would change
//     (Edit, MultiEdit, Write, NotebookEdit, Codex's apply_patch), made
//     with package diff, the file read from the agent's disk;
//   - agentside.go, gitconfig.go: what only the agent's machine knows of
//     an operation (its home and working directory, symlinks resolved as
//     the kernel does, what git's configuration runs, the content of the
//     files a line runs), added before hitl is asked (AgentSide);
//   - askuser.go: Claude Code's AskUserQuestion asked as hitl questions;
//   - wait.go: a wait for people that gives up with the question still
//     pending (ErrStillPending), and releasing a question no one waits for.
//
// It talks to a hitl service through the Go client (client.Client); the
// decision itself is the policy's, on the server.
package hook
