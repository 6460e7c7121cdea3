package blocks

import (
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

// AlertMessage renders an alert that started or cleared, for the alert
// channel: a header line naming the alert and its state, what happened,
// and since when (Slack's date token, in each reader's time zone).
func AlertMessage(a hitl.Alert) Message {
	icon, verb := ":rotating_light:", "started"
	if a.State == hitl.AlertCleared {
		icon, verb = ":white_check_mark:", "cleared"
	}
	title := "hitl alert " + a.Name + " " + verb
	head := icon + " *" + Escape(title) + "*\n"
	msg, _ := escapeCut(a.Message, MaxSectionText-Len(head), ellipsis)
	text, _ := escapeCut(title+": "+strings.TrimSpace(clean(a.Message)), MaxFallbackText, ellipsis)
	since := "since " + date(a.Since)
	if a.State == hitl.AlertCleared {
		since = "active " + date(a.Since) + " – " + date(a.At)
	}
	return Message{
		Text: text,
		Blocks: []slack.Block{
			slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, head+msg, false, false), nil, nil),
			slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType, since, false, false)),
		},
	}
}
