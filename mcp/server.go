// Package mcp is hitl's MCP server (the official Go SDK, over stdio): an
// agent's MCP client asks people questions (ask_human, get_answer),
// requests approvals decided by the policy (request_approval), and serves
// Claude Code's --permission-prompt-tool (permission_prompt), all through
// a running hitl service (client.Client). What it knows of Claude Code's
// tools it shares with the hooks: package hook (hook.ToolCall,
// hook.AgentSide, hook.AskUserQuestions).
//
// Long waits survive client timeouts: while blocked, a tool sends progress
// notifications when the client gave a progress token; after MaxWait it
// answers "pending" with the question id, and an identical retry (same
// tool, arguments and run) waits on the same question, never asking twice.
package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/hook"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of Options.
const (
	DefaultProgressEvery = 15 * time.Second
	DefaultMaxWait       = 10 * time.Minute
)

// Options configure the server.
type Options struct {
	Client *client.Client
	// Run is the run (job) questions and approvals belong to.
	Run     string
	Version string
	// ProgressEvery is how often a blocked tool sends a progress
	// notification (DefaultProgressEvery; keep it under 20s).
	ProgressEvery time.Duration
	// MaxWait is how long a tool blocks before answering "pending" with
	// the question id (DefaultMaxWait).
	MaxWait time.Duration
	// CancelOnAbort cancels a question when the client cancels the call
	// waiting on it; otherwise it stays pending for a retry or get_answer.
	CancelOnAbort bool
	// Instruction is the interaction threshold's instruction for the ask
	// tool's description (see Instruction).
	Instruction string
	Logger      *slog.Logger
	// After is the timer a rate-limited call (429) waits Retry-After on
	// before it tries again (time.After when nil); tests inject their own.
	After func(time.Duration) <-chan time.Time
	// Home is the agent's home directory ($HOME where the server runs
	// beside the agent): sent with operations so ~ is decided as it.
	Home string
	// Dir is where relative file paths of a tool call are read from, for
	// its diff (the process's working directory when empty).
	Dir string
}

// Server is hitl's MCP server.
type Server struct {
	opts Options
	srv  *sdk.Server
}

// New returns the server with its tools.
func New(o Options) *Server {
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = DefaultProgressEvery
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.Instruction == "" {
		o.Instruction = hitl.UnsetInstruction
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Client != nil {
		// Rate limited: wait as the service says and try again, within
		// the call's own wait (MaxWait, or the client cancelling it).
		o.Client = o.Client.With(client.WithRateLimitWait(o.After))
	}
	s := &Server{opts: o}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "hitl", Title: "hitl: a human in the loop", Version: o.Version},
		&sdk.ServerOptions{Logger: o.Logger, Instructions: "Tools that reach a person through hitl (Slack or a terminal). " + o.Instruction})
	s.addTools()
	return s
}

// Run serves t until the client disconnects or ctx ends. Stdio (an
// *sdk.IOTransport, as hitl mcp passes, or an *sdk.StdioTransport) is
// read a line at a time: a malformed line is answered with a JSON-RPC
// parse error (-32700) and the session goes on.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	switch st := t.(type) {
	case *sdk.IOTransport:
		t = &lineTransport{r: st.Reader, w: st.Writer}
	case *sdk.StdioTransport:
		t = &lineTransport{r: os.Stdin, w: os.Stdout}
	}
	return s.srv.Run(ctx, t)
}

// key is the idempotency key of a call: the same tool with the same
// arguments in the same run finds the question the first call asked,
// while it is pending or its outcome not yet taken.
func (s *Server) key(req *sdk.CallToolRequest) string {
	var args any
	_ = json.Unmarshal(req.Params.Arguments, &args)
	return s.keyOf(req.Params.Name, args)
}

// keyOf is the idempotency key of tool called with args in the run.
func (s *Server) keyOf(tool string, args any) string {
	b, _ := json.Marshal(args) // map keys sorted: the same arguments, the same bytes
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s", s.opts.Run, tool, b))
	return "mcp:" + hex.EncodeToString(h[:16])
}

// waiting returns the context a call blocks in (it gives up after
// MaxWait with hook.ErrStillPending) and the ticker that sends the client
// progress while it does, if the client asked for progress.
func (s *Server) waiting(ctx context.Context, req *sdk.CallToolRequest, what string) (context.Context, context.CancelFunc, client.Progress) {
	wctx, cancel := context.WithTimeoutCause(ctx, s.opts.MaxWait, hook.ErrStillPending)
	token := req.Params.GetProgressToken()
	if token == nil {
		return wctx, cancel, client.Progress{}
	}
	start, n := time.Now(), 0
	return wctx, cancel, client.Progress{Every: s.opts.ProgressEvery, Tick: func() {
		n++
		msg := fmt.Sprintf("%s (waiting %s)", what, time.Since(start).Round(time.Second))
		if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: msg}); err != nil {
			s.opts.Logger.Debug("progress notification failed", "err", err)
		}
	}}
}

// stopped handles a wait that ended before the question was settled:
// it gave up (pending, false) or the client cancelled the call, which
// cancels the question with --cancel-on-abort (the error to return).
func (s *Server) stopped(ctx context.Context, id string, err error) error {
	if ctx.Err() == nil {
		return err
	}
	if s.opts.CancelOnAbort && id != "" {
		if rerr := hook.Release(ctx, s.opts.Client, id, "the agent stopped waiting: its MCP client cancelled the call"); rerr != nil {
			s.opts.Logger.Warn("cannot cancel the abandoned question", "question", id, "err", rerr)
		}
	}
	return ctx.Err()
}

// agentName is who asks, shown to people: the MCP client's name.
func agentName(req *sdk.CallToolRequest) string {
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return p.ClientInfo.Name + " (MCP)"
		}
	}
	return "MCP client"
}

// text is a tool result of one text block (and structured content, when
// the tool declares an output type).
func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// cwd is where the server reads relative paths from.
func (s *Server) cwd() string {
	if s.opts.Dir != "" {
		return s.opts.Dir
	}
	d, _ := os.Getwd()
	return d
}
