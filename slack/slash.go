package slack

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/steer"
	goslack "github.com/slack-go/slack"
)

const slashHelp = "*hitl* — a human in the loop of your agents.\n" +
	"• `/hitl pending` — questions waiting on you (answer them in App Home or in their messages)\n" +
	"• `/hitl runs` — active runs; `/hitl status [RUN]` — one run, or all\n" +
	"• `/hitl pause RUN` · `/hitl resume RUN` · `/hitl cancel RUN`\n" +
	"• `/hitl escalate RUN [MODEL] [REASON…]` — switch to a more capable model\n" +
	"• `/hitl redirect RUN INSTRUCTION…` — a new instruction for its next iteration\n" +
	"• `/hitl policy` — rules learned with “Approve &amp; always allow”; `/hitl policy revoke ID`\n" +
	"• `/hitl web` — a one-time link that signs you in to the web inbox\n" +
	"• `/hitl help` — this help\n" +
	"RUN is a run id, or the start of an active run's id."

// pendingLines is how many questions /hitl pending lists; runLines how
// many runs /hitl runs does.
const (
	pendingLines = 20
	runLines     = 20
)

// slashHandler answers one /hitl subcommand: what to ack with (shown only
// to the person who typed it) and what to do after the ack.
type slashHandler func(ctx context.Context, cmd goslack.SlashCommand, args []string) (ack string, after func(context.Context))

func (b *Bot) slashHandlers() map[string]slashHandler {
	steerBy := func(c steer.Command) slashHandler {
		return func(ctx context.Context, cmd goslack.SlashCommand, args []string) (string, func(context.Context)) {
			return b.steerSlash(ctx, cmd, c, args)
		}
	}
	text := func(f func(ctx context.Context, user string, args []string) string) slashHandler {
		return func(ctx context.Context, cmd goslack.SlashCommand, args []string) (string, func(context.Context)) {
			return f(ctx, cmd.UserID, args), nil
		}
	}
	return map[string]slashHandler{
		"help":     text(func(context.Context, string, []string) string { return slashHelp }),
		"pending":  text(func(ctx context.Context, user string, _ []string) string { return b.pendingText(ctx, user) }),
		"pause":    steerBy(steer.CommandPause),
		"resume":   steerBy(steer.CommandResume),
		"cancel":   steerBy(steer.CommandCancel),
		"escalate": steerBy(steer.CommandEscalate),
		"redirect": steerBy(steer.CommandRedirect),
		"runs":     text(func(ctx context.Context, user string, _ []string) string { return b.runsText(ctx, user) }),
		"status":   text(b.statusText),
		"policy":   b.policySlash,
		"web":      text(b.webLinkText),
	}
}

// onSlashCommand answers /hitl: the ack carries an ephemeral reply; work
// whose outcome comes later (a command's RESULT, a list with buttons) is
// posted to the command's response_url after the ack.
func (b *Bot) onSlashCommand(ctx context.Context, cmd goslack.SlashCommand) (any, func(context.Context)) {
	args := strings.Fields(cmd.Text)
	verb := "help"
	if len(args) > 0 {
		verb, args = strings.ToLower(args[0]), args[1:]
	}
	h, ok := b.slashHandlers()[verb]
	if !ok {
		return ephemeral(fmt.Sprintf("Unknown command %s.\n%s", blocks.Escape("`"+verb+"`"), slashHelp)), nil
	}
	text, after := h(ctx, cmd, args)
	if text == "" {
		return nil, after
	}
	return ephemeral(text), after
}

func ephemeral(text string) map[string]any {
	return map[string]any{"response_type": "ephemeral", "text": text}
}

// usage is the help line of a steering command.
func usage(c steer.Command) string {
	u := map[steer.Command]string{
		steer.CommandEscalate: "/hitl escalate RUN [MODEL] [REASON…]",
		steer.CommandRedirect: "/hitl redirect RUN INSTRUCTION…",
	}[c]
	if u == "" {
		u = "/hitl " + string(c) + " RUN"
	}
	return "Usage: `" + u + "` — RUN is a run id or the start of an active run's id."
}

// steerSlash sends a steering command before the ack (so an acked command
// is durable), acks with its ACK and posts its RESULT to the response_url.
func (b *Bot) steerSlash(ctx context.Context, cmd goslack.SlashCommand, c steer.Command, args []string) (string, func(context.Context)) {
	var p steer.ControlPayload
	switch {
	case len(args) == 0,
		c == steer.CommandRedirect && len(args) < 2,
		(c == steer.CommandPause || c == steer.CommandResume || c == steer.CommandCancel) && len(args) != 1:
		return usage(c), nil
	case c == steer.CommandEscalate:
		p.Model, args = b.cfg.Models[0], args[1:]
		if len(args) > 0 && slices.ContainsFunc(b.cfg.Models, func(m string) bool { return strings.EqualFold(m, args[0]) }) {
			p.Model, args = args[0], args[1:]
		}
		p.Reason = strings.Join(args, " ")
	case c == steer.CommandRedirect:
		p.Instruction = strings.Join(args[1:], " ")
	}
	run, err := b.resolveRun(ctx, cmd.UserID, strings.Fields(cmd.Text)[1])
	if err != nil {
		return errorText(err), nil
	}
	ack, result, err := b.control(ctx, cmd.UserID, c, run, p)
	if err != nil {
		return errorText(err), nil
	}
	if ack == nil { // a malformed or repeated request: only a RESULT
		return blocks.ControlText(result), nil
	}
	return blocks.ControlText(*ack), func(ctx context.Context) {
		b.reply(ctx, cmd.ResponseURL, &goslack.WebhookMessage{Text: blocks.ControlText(result), ResponseType: goslack.ResponseTypeEphemeral})
	}
}

// reply posts msg to a response_url.
func (b *Bot) reply(ctx context.Context, url string, msg *goslack.WebhookMessage) {
	if url == "" {
		return
	}
	if err := b.respond(ctx, url, msg); err != nil {
		b.log.Warn("replying to a slash command failed", "err", err)
	}
}

// runsText lists the active runs.
func (b *Bot) runsText(ctx context.Context, user string) string {
	page, err := b.svc.Runs.Runs(auth.WithPrincipal(ctx, b.slackPrincipal(ctx, user)), true, runLines, "")
	if err != nil {
		return errorText(err)
	}
	if len(page.Runs) == 0 {
		return "No run is active."
	}
	lines := make([]string, 0, len(page.Runs)+1)
	for _, r := range page.Runs {
		lines = append(lines, "• "+blocks.RunLine(r, page.Handles[r.ID]))
	}
	if page.NextCursor != "" {
		lines = append(lines, "…and more: `hitl runs` lists them all.")
	}
	return fmt.Sprintf("*Active runs (%d%s):*\n%s", len(page.Runs), map[bool]string{true: "+"}[page.NextCursor != ""], strings.Join(lines, "\n"))
}

// statusText shows one run, or all active runs.
func (b *Bot) statusText(ctx context.Context, user string, args []string) string {
	switch len(args) {
	case 0:
		return b.runsText(ctx, user)
	case 1:
	default:
		return "Usage: `/hitl status [RUN]`"
	}
	id, err := b.resolveRun(ctx, user, args[0])
	if err != nil {
		return errorText(err)
	}
	run, err := b.svc.Runs.RunRecord(auth.WithPrincipal(ctx, b.slackPrincipal(ctx, user)), id)
	if err != nil {
		return errorText(err)
	}
	return blocks.RunLine(run, "")
}

// policySlash lists the learned rules with Revoke buttons (posted to the
// response_url, so the buttons can be clicked), or revokes one.
func (b *Bot) policySlash(ctx context.Context, cmd goslack.SlashCommand, args []string) (string, func(context.Context)) {
	switch {
	case len(args) == 2 && strings.EqualFold(args[0], "revoke"):
		r, err := b.svc.Policies.RevokeRule(auth.WithPrincipal(ctx, b.slackPrincipal(ctx, cmd.UserID)), args[1])
		if err != nil {
			return errorText(err), nil
		}
		return blocks.RevokedText(r), nil
	case len(args) != 0:
		return "Usage: `/hitl policy` or `/hitl policy revoke ID`", nil
	}
	// The root decides who sees learned rules (answerers and admins).
	page, err := b.svc.Policies.LearnedRules(auth.WithPrincipal(ctx, b.slackPrincipal(ctx, cmd.UserID)), hitl.LearnedRuleFilter{Limit: blocks.MaxListedRules})
	if err != nil {
		return errorText(err), nil
	}
	msg := blocks.PolicyMessage(page.Rules, page.NextCursor != "")
	return "", func(ctx context.Context) {
		b.reply(ctx, cmd.ResponseURL, &goslack.WebhookMessage{Text: msg.Text, Blocks: &goslack.Blocks{BlockSet: msg.Blocks},
			ResponseType: goslack.ResponseTypeEphemeral})
	}
}

func (b *Bot) pendingText(ctx context.Context, user string) string {
	qs, more, err := b.queue(ctx, user, pendingLines)
	if err != nil {
		return errorText(err)
	}
	if len(qs) == 0 {
		return "Nothing is waiting on you. 🎉"
	}
	lines := make([]string, 0, len(qs)+1)
	for _, q := range qs {
		lines = append(lines, fmt.Sprintf("• `%s` (run `%s`): %s", q.ID, blocks.Escape(q.RunID), blocks.Truncate(blocks.Escape(q.Question), 150, "…")))
	}
	count := fmt.Sprint(len(qs))
	if more {
		count += "+"
		lines = append(lines, "…and more: open the hitl App Home, or `hitl pending`.")
	}
	return fmt.Sprintf("*%s waiting on you:*\n%s", count, strings.Join(lines, "\n"))
}
