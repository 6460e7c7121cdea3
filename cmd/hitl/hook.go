package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/hook"
	"github.com/hitlbot/hitl/steer"
)

// Hooks: Claude Code and Codex CLI run `hitl hook claude|codex` on a hook
// event with the event's JSON on stdin and read the decision from stdout.
// A hook that fails or prints nothing leaves the decision to the agent's
// own terminal prompt, so a hook never allows what hitl did not decide.

// defaultHookWait is how long a hook waits for people: under the 600 s
// both agents give a hook by default, after which they kill it and ask
// in the terminal anyway.
const defaultHookWait = 9 * time.Minute

// hookInput is what both agents send (Claude Code's common fields and
// its tool events'; Codex adds turn_id and model).
type hookInput struct {
	SessionID      string    `json:"session_id"`
	CWD            string    `json:"cwd"`
	PermissionMode string    `json:"permission_mode"`
	HookEventName  string    `json:"hook_event_name"`
	ToolName       string    `json:"tool_name"`
	ToolInput      toolInput `json:"tool_input"`
	ToolUseID      string    `json:"tool_use_id"`
	TurnID         string    `json:"turn_id"`
	Model          string    `json:"model"`
	// Version is the agent's version, where its payload names it; Source
	// is why SessionStart fired (startup, resume, clear, compact).
	Version string `json:"version"`
	Source  string `json:"source"`
	// Prompt is UserPromptSubmit's prompt: the session's title.
	Prompt string `json:"prompt"`
	// ApprovalContext is what Codex releases that sent it give with a
	// PermissionRequest: the model's justification and the sandbox
	// permissions it asks for.
	ApprovalContext *hook.ApprovalContext `json:"approval_context"`
}

// toolInput is a tool's input: an object, as Claude Code and Codex send
// for their tools. Any other JSON (Codex's schemas allow it after a tool
// ran) is kept under "input", so that the event still reads.
type toolInput map[string]any

func (t *toolInput) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err == nil {
		*t = m
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*t = toolInput{"input": v}
	return nil
}

// hookCall is one hook run.
type hookCall struct {
	e     *env
	c     *client.Client
	in    hookInput
	agent string // "Claude Code", "Codex"
	run   string
	wait  time.Duration
	start time.Time // when the hook began to wait for people
	// waited is how long the hook waited before it stopped: --wait, or
	// less when the agent cut it short (cancelled, killed).
	waited time.Duration
	cut    bool // the agent stopped the hook before --wait
	// decideTools: PreToolUse decides tool calls (--decide-tools).
	decideTools bool
	// seen is what each file a diff was made from held (operation).
	seen map[string]string
	// edits are the people's edits of a file change that decide asked
	// again about (in order), and edited the call as they left it: what
	// runs once the last question is approved (nil: the call as the
	// agent made it).
	edits  []fileEdit
	edited *hook.ToolCall
}

func cmdHook(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	wait := fs.Duration("wait", defaultHookWait, "how long to wait for people before leaving the decision to the terminal (keep it under the hook's timeout)")
	run := fs.String("run", "", "the run to ask in (default: claude-SESSION or codex-SESSION, one per agent session)")
	decideTools := fs.Bool("decide-tools", true, "PreToolUse: decide every tool call by policy in every permission mode: a rule a person wrote or taught allows, deny denies, ask asks people, the default policy's allow leaves it to the agent (false: only steer and answer AskUserQuestion; then Claude Code's acceptEdits, auto and bypassPermissions modes never ask hitl)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return hookFailed(err)
	}
	if len(pos) != 1 || (pos[0] != "claude" && pos[0] != "codex") {
		return hookFailed(usageError(fs, "hitl hook needs the agent: hitl hook claude, or hitl hook codex"))
	}
	// Rate limited: wait Retry-After and try again, within --wait.
	h := &hookCall{e: e, c: newClient(e).With(client.WithRateLimitWait(e.after)), wait: *wait, decideTools: *decideTools}
	b, err := io.ReadAll(io.LimitReader(e.stdin, 16<<20))
	if err == nil {
		err = json.Unmarshal(b, &h.in)
	}
	if err != nil {
		return hookFailed(fault.Errorf(fault.EINVALID, "the hook event on stdin is not JSON: %v", err))
	}
	prefix := pos[0]
	h.agent = map[string]string{"claude": "Claude Code", "codex": "Codex"}[prefix]
	h.run = *run
	if h.run == "" {
		h.run = prefix + "-" + cmp.Or(h.in.SessionID, "session")
		if steer.ValidateRunID(h.run) != nil {
			h.run = prefix + "-" + digest(h.in.SessionID)[:16]
		}
	}
	if !handledEvent(h.in.HookEventName) {
		return hookFailed(unhandledEvent(prefix, h.in.HookEventName, hookEvents))
	}
	step := h.session(ctx)
	if prefix == "codex" {
		return h.codex(ctx, step)
	}
	return h.claude(ctx, step)
}

// hookEvents are the events both hooks handle, as their errors name them.
const hookEvents = "SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, Stop and SessionEnd"

func handledEvent(name string) bool {
	for _, e := range steer.HookEvents {
		if string(e) == name {
			return true
		}
	}
	return false
}

// hookFailed ends a hook with exit 1: the agents read exit 2 as "block
// the tool", which a broken hook must not do; with 1 they go on to their
// own prompt.
func hookFailed(err error) error {
	var o *outcome
	if errors.As(err, &o) {
		return o // --help
	}
	return &outcome{code: exitFailure, msg: prefixed("hook", fault.Message(err))}
}

// unhandledEvent is the error for a hook event hitl does not handle: the
// agent's settings send it an event it was not made for.
func unhandledEvent(agent, event, handled string) error {
	if event == "" {
		event = "(none)"
	}
	return fault.Errorf(fault.EINVALID, "hitl hook %s handles %s, not %q: remove %q from hitl's hooks in the agent's settings",
		agent, handled, event, event)
}

// call is the tool call the event is about.
func (h *hookCall) call() hook.ToolCall {
	return hook.ToolCall{Tool: h.in.ToolName, Input: h.in.ToolInput, Approval: h.in.ApprovalContext}
}

// key makes the event's questions idempotent: the same event (a hook
// run again for the same tool use) finds the question already asked.
func (h *hookCall) key() string {
	b, _ := json.Marshal([]any{h.agent, h.in.HookEventName, h.in.SessionID, h.in.TurnID, h.in.ToolUseID, h.in.ToolName, h.in.ToolInput})
	return "hook:" + digest(string(b))[:32]
}

// giveUp returns the context people are waited for in: it ends with
// hook.ErrStillPending after --wait.
func (h *hookCall) giveUp(ctx context.Context) (context.Context, context.CancelFunc) {
	h.start = time.Now()
	return hook.GiveUpAt(ctx, h.e.afterFunc()(h.wait))
}

// stopped records how long the hook waited before it stopped: ctx is the
// hook's own context, done when the agent stopped it.
func (h *hookCall) stopped(ctx context.Context) {
	h.waited, h.cut = h.wait, ctx.Err() != nil
	if h.cut {
		h.waited = time.Since(h.start).Round(time.Second)
	}
}

// movedReason is why a question is cancelled when the hook stops waiting:
// shown in its Slack message.
func (h *hookCall) movedReason() string {
	if h.cut {
		return fmt.Sprintf("moved to the terminal: %s stopped its hook after %s (before the hook's --wait of %s); answer it in %s", h.agent, h.waited, h.wait, h.agent)
	}
	return fmt.Sprintf("moved to the terminal: %s's hook stopped waiting after %s; answer it in %s", h.agent, h.waited, h.agent)
}

// decide decides the event's tool call by policy, asking people when it
// says so. When the wait ends before a decision (--wait, or the agent
// killed the hook) it cancels the question with movedReason and returns
// hook.ErrStillPending.
//
// An approval is of the diff a person saw: when a file changed on disk
// before the answer arrived, the change is asked again with the new diff
// (at most maxReasks times), never allowed on the old one. An approval
// with an edit of a file change (its path, its new text) is not an
// approval of what it runs either: the edited change's diff, against the
// file at the (edited) path as it is now, is asked again, as a new
// question naming the first; the edited call runs only once that is
// approved (h.edited).
func (h *hookCall) decide(ctx context.Context) (client.GateResult, error) {
	call := h.call()
	key, notice := h.key(), ""
	for asked := 0; ; asked++ {
		op := hook.AgentSide(h.operationOf(call), h.e.getenv("HOME"), h.in.CWD)
		// A PermissionRequest fires only when the agent was about to ask its
		// person: only a rule a person wrote or taught allows then. At
		// PreToolUse an allow of the default policy is no decision (see
		// onlyDefault): the agent's own permissions apply.
		op.Prompted = h.in.HookEventName == "PermissionRequest"
		if notice != "" {
			op.Context = strings.TrimSpace(notice + " " + op.Context)
			key = fmt.Sprintf("%s-%d-%s", h.key(), asked, diffsKey(op.Diffs))
		}
		// Each question waits --wait, and says so: its deadline is when
		// the hook stops waiting for it.
		gctx, cancel := h.giveUp(ctx)
		v, err := h.c.Gate(gctx, hitl.ApprovalRequest{Operation: op, RunID: h.run, IdempotencyKey: key, TimeoutMinutes: h.timeout()}, client.Progress{})
		stopped := err != nil && gctx.Err() != nil
		cancel()
		v.By = auth.PersonName(v.By) // as people and the agent read who decided
		if stopped {
			h.stopped(ctx)
			h.release(ctx, v.QuestionID)
			return v, hook.ErrStillPending
		}
		if err != nil {
			return v, h.waitRefused(err)
		}
		if !v.Allowed || v.By == "" || len(op.Diffs) == 0 {
			return v, nil // a rule decides by path; only a person saw a diff
		}
		again := func() error {
			if asked < maxReasks {
				return nil
			}
			return fault.Errorf(fault.ECONFLICT, "%s was asked %d times (edited, or changed on disk while people decided)", op.Resource, asked+1)
		}
		if v.Edited != "" || v.EditedContent != "" {
			input, ok := call.EditedInput(v.Edited, v.EditedContent)
			if !ok {
				return client.GateResult{}, fault.Errorf(fault.EINVALID, "%s approved %s only with an edit that cannot be applied to it", v.By, h.in.ToolName)
			}
			e := fileEdit{by: v.By, question: v.QuestionID, to: hook.ToolCall{Tool: call.Tool, Input: input, Approval: call.Approval}}
			if err := again(); err != nil {
				return client.GateResult{}, err
			}
			h.edits = append(h.edits, e)
			call = e.to
			edited := e.to
			h.edited = &edited
			notice = fmt.Sprintf("Asked again: %s edited this change (question %s); this is the diff of the edited change against %s as it is now.", v.By, v.QuestionID, e.path())
			continue
		}
		changed := h.changedSince()
		if changed == "" {
			v.Edited, v.EditedContent = "", ""
			return v, nil
		}
		if err := again(); err != nil {
			return client.GateResult{}, err
		}
		notice = fmt.Sprintf("Asked again: %s changed on disk after %s approved its diff; this is the diff against what it holds now.", changed, v.By)
	}
}

// timeout is the deadline the hook's questions ask for: --wait, when the
// hook stops waiting for them.
func (h *hookCall) timeout() *float64 {
	m := h.wait.Minutes()
	return &m
}

// waitRefused says, for a question the service refused because --wait
// is outside its timeout bounds, which flag to change: the hook never
// asks with another deadline than its own wait.
func (h *hookCall) waitRefused(err error) error {
	if fault.Code(err) != fault.EINVALID || !strings.Contains(fault.Message(err), "(timeouts.m") {
		return err
	}
	return fault.Errorf(fault.EINVALID, "hitl hook --wait %s: %s; a question's deadline is when the hook stops waiting, so set --wait within those bounds (and the agent's hook timeout above it)",
		hitl.ShortDuration(h.wait), fault.Message(err))
}

// maxReasks bounds how often a change is asked again because its file
// changed while people decided or a person edited it.
const maxReasks = 4

// onlyDefault reports whether v is an allow of the default policy alone:
// no rule a person wrote or taught, nobody asked. A hook never passes that
// on as an allow, which would widen the agent's own permissions.
func onlyDefault(v client.GateResult) bool {
	return v.Allowed && v.By == "" && v.QuestionID == "" && strings.HasPrefix(v.Rule, "default")
}

// answer asks AskUserQuestion's questions, like decide.
func (h *hookCall) answer(ctx context.Context) (map[string]any, error) {
	gctx, cancel := h.giveUp(ctx)
	defer cancel()
	updated, asked, err := hook.AskUserQuestions(gctx, h.c, h.run, h.key(), h.in.ToolInput, h.wait, client.Progress{})
	if err != nil && gctx.Err() != nil {
		h.stopped(ctx)
		h.release(ctx, asked...)
		return nil, hook.ErrStillPending
	}
	if err != nil {
		return nil, h.waitRefused(err)
	}
	return updated, nil
}

// release cancels questions nobody answered in time.
func (h *hookCall) release(ctx context.Context, ids ...string) {
	for _, id := range ids {
		if id == "" {
			continue
		}
		if err := hook.Release(ctx, h.c, id, h.movedReason()); err != nil {
			fmt.Fprintf(h.e.stderr, "hitl hook: cannot cancel %s: %s\n", id, visible(fault.Message(err)))
		}
	}
}

// why says, for the agent, why hitl did not decide.
func (h *hookCall) why(err error) string {
	if errors.Is(err, hook.ErrStillPending) {
		if h.cut {
			return fmt.Sprintf("No decision in hitl: the hook was stopped after %s (before its --wait of %s): asking here instead", h.waited, h.wait)
		}
		return fmt.Sprintf("No decision in hitl within %s: asking here instead", h.waited)
	}
	return "hitl could not decide (" + fault.Message(err) + "): asking here instead"
}

// print writes the decision JSON on stdout.
func (h *hookCall) print(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(h.e.stdout, "%s\n", b)
	return err
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
