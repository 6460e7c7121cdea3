package main

import (
	"context"
	"maps"
	"os"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/hook"
	"github.com/hitlbot/hitl/sandbox"
)

// Enforcement where hitl sees a command run: hitl gate, and the hooks'
// Bash calls. With policy.enforce: kernel (the grant says so), an allowed
// or approved line runs under `hitl sandbox` with its grant
// (docs/security.md#the-kernel-enforces-the-grant).

// selfProgram is the hitl executable the wrapped command runs (a test's
// child replaces it).
var selfProgram = os.Executable

// runGrant is the grant a gate result runs under when the kernel is to
// hold it (nil: the decision alone). An edited command is decided again,
// so that it runs under its own grant.
func runGrant(ctx context.Context, c *client.Client, v client.GateResult, op hitl.Operation) (*hitl.CommandGrant, error) {
	g := v.Decision.Grant
	if g == nil || g.Enforce != hitl.EnforceKernel {
		return nil, nil
	}
	if v.Edited == "" {
		return g, nil
	}
	op.Resource = v.Edited
	d, err := c.CheckOperation(ctx, hitl.ApprovalRequest{Operation: op})
	if err != nil {
		return nil, err
	}
	if d.Grant == nil {
		return nil, fault.Errorf(fault.EREFUSED, "the edited command %s does not parse, so no grant holds it", v.Edited)
	}
	return d.Grant, nil
}

// sandboxArgv is argv run by `hitl sandbox` under g, in dir. It refuses
// where the kernel has no Landlock: the grant would hold nothing.
func sandboxArgv(e *env, g *hitl.CommandGrant, dir string, argv []string) ([]string, error) {
	if abi := e.landlockABI(); abi == 0 {
		return nil, fault.Errorf(fault.EREFUSED, "the policy says the kernel holds this command to its grant (enforce: kernel), but this kernel has no Landlock")
	}
	self, err := selfProgram()
	if err != nil {
		return nil, fault.Errorf(fault.EINTERNAL, "cannot find hitl's own program to run the sandbox: %v", err)
	}
	out := append([]string{self, "sandbox", "--quiet"}, sandbox.Args(g, dir, e.getenv)...)
	return append(append(out, "--"), argv...), nil
}

// enforced is the Bash call's input rewritten to run its line under `hitl
// sandbox` with its grant, when the policy says the kernel holds it
// (input: the call's input as it stands, with an approver's edit); nil
// when nothing changes. false: it cannot be held (no Landlock), and the
// call is left to the agent's own prompt with why.
func (h *hookCall) enforced(ctx context.Context, v client.GateResult, input map[string]any) (updated map[string]any, why string, ok bool) {
	if h.in.ToolName != "Bash" || v.Decision.Grant == nil {
		return nil, "", true
	}
	if input == nil {
		input = h.in.ToolInput
	}
	line, _ := input["command"].(string)
	grant, err := runGrant(ctx, h.c, v, hook.AgentSide(h.operationOf(h.call()), h.e.getenv("HOME"), h.in.CWD))
	if err == nil && grant == nil {
		return nil, "", true
	}
	var argv []string
	if err == nil {
		argv, err = sandboxArgv(h.e, grant, h.in.CWD, []string{"bash", "-c", line})
	}
	if err != nil {
		return nil, "hitl allowed this, but " + fault.Message(err) + ": asking here instead", false
	}
	updated = maps.Clone(input)
	updated["command"] = shellJoin(argv)
	return updated, "", true
}
