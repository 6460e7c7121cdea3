package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/hook"
	"github.com/hitlbot/hitl/policy"
)

// cmdPolicy is hitl policy show|check|rules|revoke.
func cmdPolicy(ctx context.Context, args []string, e *env) error {
	return subcommand(ctx, "policy", args, e, map[string]command{"show": policyShow, "check": policyCheck, "rules": policyRules, "revoke": policyRevoke},
		"usage: hitl policy show | check --op-type T [--resource R] [--risk R] [--agent A] [--prompted] [--json] | rules [--agent A] [--all] | revoke ID")
}

func policyShow(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("policy show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	pol, err := newClient(e).Policy(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e, pol)
	}
	if len(pol.Rules) == 0 {
		fmt.Fprintln(e.stdout, "No rules are configured (policy.rules in the config file, or PUT /api/policy).")
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	if len(pol.Rules) > 0 {
		fmt.Fprintln(tw, "#\tRULE\tOP TYPE\tRISK\tRESOURCE\tAGENT\tEFFECT\tAPPROVERS")
	}
	for i, r := range pol.Rules {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, cell(r.Name, 30), orAny(string(r.OpType)), orAny(joinRisks(r.Risk)),
			cell(orAny(r.Resource), 40), orAny(r.Agent), r.Effect, approvers(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "\nLearned rules (\"Approve & always allow\"): "+hint("policy rules")+"; "+hint("policy revoke ID")+".")
	fmt.Fprintln(e.stdout, "\nWhen no rule matches (the default policy): file_delete, shell, file_write and custom types ask; api_call, file_read and spawn_agent are allowed.")
	return nil
}

func orAny(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

func joinRisks(rs []hitl.Risk) string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r))
	}
	return strings.Join(out, ",")
}

func approvers(r hitl.Rule) string {
	if r.Effect != hitl.EffectAsk {
		return "-"
	}
	who := "whoever may answer"
	if len(r.Approvers) > 0 {
		who = strings.Join(r.Approvers, ",")
	}
	if r.Quorum > 1 {
		who = fmt.Sprintf("%d of %s", r.Quorum, who)
	}
	return who
}

func policyCheck(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("policy check", flag.ContinueOnError)
	op := fs.String("op-type", "", "the operation type: file_delete, file_write, file_read, shell, api_call, spawn_agent or your own")
	resource := fs.String("resource", "", "the path, command or URL")
	risk := fs.String("risk", "", "low, medium, high or critical")
	agentName := fs.String("agent", "", "the token name of the agent asking (default: yours; another needs the answer scope)")
	home := fs.String("home", e.getenv("HOME"), "the agent's home directory, for ~ in the command or path (default $HOME)")
	cwd := fs.String("cwd", "", "the agent's working directory: relative paths are placed in it and every path is resolved on this machine as the hooks do (default: this directory, as hitl gate sends it)")
	recursive := fs.Bool("recursive", false, "a file_read reads everything beneath --resource (Claude Code's Grep and Glob)")
	prompted := fs.Bool("prompted", false, "decide as for an agent about to ask its own person (PermissionRequest): no default allows")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	if *op == "" {
		return usageError(fs, "hitl policy check needs --op-type: hitl policy check --op-type shell --resource \"rm -rf build\"")
	}
	o := hitl.Operation{Type: hitl.OpType(*op), Description: "check", Resource: *resource, Risk: hitl.Risk(*risk), Prompted: *prompted, Recursive: *recursive}
	if *cwd == "" {
		*cwd = workingDir() // as hitl gate: a relative path is placed where the check runs
	}
	o = hook.AgentSide(o, *home, *cwd)
	if *agentName != "" {
		o.Agent = *agentName // the root names it (a token name is api:NAME)
	}
	if err := policy.ValidateOperation(&o); err != nil {
		return err
	}
	// The server decides, as hitl gate would: learned rules included.
	d, err := newClient(e).CheckOperation(ctx, hitl.ApprovalRequest{Operation: o})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e, d)
	}
	fmt.Fprintln(e.stdout, decisionLine(d))
	if len(d.Risks) > 0 {
		fmt.Fprintln(e.stdout, "  risk: "+visible(hitl.RiskSummary(d.Risks)))
	}
	printParts(e.stdout, d.Parts)
	if d.Grant != nil {
		fmt.Fprintln(e.stdout, "When it runs: "+visible(d.Grant.Text()))
	}
	return nil
}

// decisionLine says what the policy decided and by which rule.
func decisionLine(d hitl.Decision) string {
	line := fmt.Sprintf("%s (rule %s)", d.Effect, visible(d.Rule))
	if strings.HasPrefix(d.Rule, "default") {
		line = fmt.Sprintf("%s (%s)", d.Effect, visible(strings.Replace(d.Rule, "default", "default policy", 1)))
	}
	if d.Effect == hitl.EffectAsk && (len(d.Approvers) > 0 || d.Quorum > 1) {
		line += fmt.Sprintf(": %d approval(s) from %s", max(d.Quorum, 1), orAnyone(d.Approvers))
	}
	return line
}

// printParts shows how each part of a command line decided.
func printParts(w io.Writer, parts []hitl.DecisionPart) {
	if !hitl.PartsTellMore(parts) {
		return
	}
	for _, p := range parts {
		fmt.Fprintln(w, partLine(p))
	}
}

func orAnyone(ids []string) string {
	if len(ids) == 0 {
		return "whoever may answer"
	}
	return strings.Join(ids, ", ")
}

func policyRules(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("policy rules", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON (one page)")
	agentName := fs.String("agent", "", "only this agent's rules (a token name)")
	limit := fs.Int("limit", 100, "rules per page")
	cursor := fs.String("cursor", "", "continue after the page that printed it")
	all := fs.Bool("all", false, "list every page")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	f := hitl.LearnedRuleFilter{Limit: *limit, Cursor: *cursor}
	if *agentName != "" {
		f.Agent = *agentName
	}
	c := newClient(e)
	page, err := c.LearnedRules(ctx, f)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(e, page)
	}
	if len(page.Rules) == 0 && f.Cursor == "" {
		fmt.Fprintln(e.stdout, "No learned rules. (An approval's \"Approve & always allow\" adds one.)")
		return nil
	}
	for {
		for _, r := range page.Rules {
			fmt.Fprintf(e.stdout, "%s  allow %s %q for %s  (by %s, %s; expires %s)\n", r.ID, r.OpType, visible(r.Resource), visible(r.Agent),
				visible(r.CreatedBy), r.CreatedAt.Local().Format("2006-01-02 15:04"), r.ExpiresAt.Local().Format("2006-01-02 15:04"))
		}
		if page.NextCursor == "" {
			return nil
		}
		if !*all {
			fmt.Fprintf(e.stdout, "…more: %s (or --all)\n", hint("policy rules --cursor "+page.NextCursor))
			return nil
		}
		f.Cursor = page.NextCursor
		if page, err = c.LearnedRules(ctx, f); err != nil {
			return err
		}
	}
}

func policyRevoke(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("policy revoke", flag.ContinueOnError)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError(fs, "hitl policy revoke needs a learned rule's id (hitl policy rules lists them)")
	}
	r, err := newClient(e).RevokeRule(ctx, pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Revoked %s: %s\n", r.ID, visible(r.Name()))
	return nil
}
