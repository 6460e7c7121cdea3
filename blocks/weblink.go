package blocks

import (
	"net/url"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

// webLink links a pending question to its page in the web inbox
// (/q/{id} under opts.WebURL), or is nil without a web URL.
func webLink(q *hitl.Question, opts MessageOptions) *slack.ContextBlock {
	if opts.WebURL == "" || q.ID == "" {
		return nil
	}
	u := strings.TrimRight(opts.WebURL, "/") + "/q/" + url.PathEscape(q.ID)
	return contextBlock(mrkdwn("🌐 <" + Escape(u) + "|Open in the web inbox>"))
}
