package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/hitlbot/hitl/blocks"
	"github.com/slack-go/slack"
)

const slashHelp = "*hitl* — a human in the loop of your agents.\n" +
	"• `/hitl pending` — questions waiting on you (answer them in App Home or in their messages)\n" +
	"• `/hitl help` — this help"

// pendingLines is how many questions /hitl pending lists.
const pendingLines = 20

// onSlashCommand answers /hitl in the ack, as an ephemeral message. It
// runs within the envelope's ack budget.
func (b *Bot) onSlashCommand(ctx context.Context, cmd slack.SlashCommand) any {
	verb, _, _ := strings.Cut(strings.TrimSpace(cmd.Text), " ")
	text := slashHelp
	switch strings.ToLower(verb) {
	case "", "help":
	case "pending":
		text = b.pendingText(ctx, cmd.UserID)
	default:
		text = fmt.Sprintf("Unknown command %s.\n%s", blocks.Escape("`"+verb+"`"), slashHelp)
	}
	return map[string]any{"response_type": "ephemeral", "text": text}
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
		lines = append(lines, fmt.Sprintf("• `%s` (run `%s`): %s", q.ID, blocks.Escape(q.JobID), blocks.Truncate(blocks.Escape(q.Question), 150, "…")))
	}
	count := fmt.Sprint(len(qs))
	if more {
		count += "+"
		lines = append(lines, "…and more: open the hitl App Home, or `hitl pending`.")
	}
	return fmt.Sprintf("*%s waiting on you:*\n%s", count, strings.Join(lines, "\n"))
}
