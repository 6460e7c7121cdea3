package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/slack-go/slack"
)

const slashHelp = "*hitl* — a human in the loop of your agents.\n" +
	"• `/hitl pending` — questions waiting on you (answer them in App Home or in their messages)\n" +
	"• `/hitl help` — this help"

// onSlashCommand answers /hitl in the ack, as an ephemeral message.
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
	page, err := b.questions.QuestionPage(ctx, hitl.QuestionFilter{Status: hitl.StatusPending, Limit: hitl.MaxPageSize})
	if err != nil {
		return errorText(err)
	}
	qs := page.Questions
	var lines []string
	for _, q := range qs {
		if b.waitsOn(ctx, q, user) {
			lines = append(lines, fmt.Sprintf("• `%s` (run `%s`): %s", q.ID, blocks.Escape(q.JobID), blocks.Truncate(blocks.Escape(q.Question), 150, "…")))
		}
	}
	n := len(lines)
	if n == 0 {
		return "Nothing is waiting on you. 🎉"
	}
	if n > 20 {
		lines = append(lines[:20], fmt.Sprintf("…and %d more: open the hitl App Home.", n-20))
	}
	return fmt.Sprintf("*%d waiting on you:*\n%s", n, strings.Join(lines, "\n"))
}
