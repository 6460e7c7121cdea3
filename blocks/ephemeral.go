package blocks

import (
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

// Ephemeral texts (mrkdwn, for chat.postEphemeral or a modal error). They
// are short and never show a sensitive value.

// AlreadySettled tells someone who clicked a settled question what happened
// first: "Already answered by <@U…> at …".
func AlreadySettled(s Settlement) string {
	at := ""
	if !s.At.IsZero() {
		at = " at " + date(s.At)
	}
	switch s.Status {
	case hitl.StatusAnswered:
		return "Already answered by " + actor(s.By) + at + "."
	case hitl.StatusTimeout:
		return "This question already timed out" + at + "."
	case hitl.StatusCancelled:
		if s.By == "" {
			return "This question was cancelled" + at + "."
		}
		return "This question was cancelled by " + actor(s.By) + at + "."
	}
	return "This question is no longer waiting for an answer."
}

// SettlementFromError reads a conflict *fault.Error (code conflict, with
// Status, By and At) as a Settlement. An error from an older peer without
// Status is inferred: the system actor means a timeout, a message saying
// "cancelled" a cancel, anything else an answer.
func SettlementFromError(err error) (Settlement, bool) {
	var e *fault.Error
	if !errors.As(err, &e) || e.Code != fault.ECONFLICT || (e.By == "" && e.At == "") {
		return Settlement{}, false
	}
	s := Settlement{Status: hitl.Status(e.Status), By: e.By}
	if t, perr := time.Parse(time.RFC3339, e.At); perr == nil {
		s.At = t
	}
	switch {
	case s.Status != "":
	case e.By == auth.ActorSystem:
		s.Status = hitl.StatusTimeout
	case strings.Contains(e.Message, "cancelled"):
		s.Status = hitl.StatusCancelled
	default:
		s.Status = hitl.StatusAnswered
	}
	return s, true
}

// ErrorText turns a hitl error code and message into an ephemeral text. The
// message is escaped and cut; internal errors do not show it.
func ErrorText(code, message string) string {
	msg, _ := escapeCut(oneLine(message), 500, ellipsis)
	with := func(prefix string) string {
		if msg == "" {
			return strings.TrimSuffix(prefix, ": ") + "."
		}
		return prefix + msg
	}
	switch code {
	case fault.EINVALID:
		return with("⚠️ That didn't work: ")
	case fault.ENOTFOUND:
		return with("⚠️ Not found: ")
	case fault.ECONFLICT:
		return with("⚠️ Too late: ")
	case fault.EFORBIDDEN:
		return Refusal(message)
	case fault.EUNAUTHORIZED:
		return with("🚫 You're not allowed to do that: ")
	case fault.EREFUSED:
		return with("🚫 Refused: ")
	case fault.ETOOLARGE:
		return with("⚠️ Too long: ")
	case fault.EUNAVAILABLE:
		return with("⏳ hitl is unavailable right now, try again in a moment: ")
	case fault.ETIMEDOUT:
		return with("⏱ Timed out: ")
	case fault.ECANCELLED:
		return with("🚫 Cancelled: ")
	}
	return "💥 Something went wrong on our side. Try again, or answer with `hitl answer`."
}

// Refusal tells a Slack user that the rules refused their answer, in the
// words of the rule that did (hitl's EFORBIDDEN message): "🚫 You're not
// allowed to answer this: <@U0ALICE> asked q_1 and may not answer it — a
// person decides, not the agent that asked." Slack user ids in the rule
// become mentions; everything else is escaped and cut.
func Refusal(rule string) string {
	const head = "🚫 You're not allowed to answer this"
	msg, _ := escapeCut(oneLine(rule), 500, ellipsis)
	if msg == "" {
		return head + "."
	}
	words := strings.Split(strings.ReplaceAll(msg, ": ", " — "), " ")
	for i, w := range words {
		words[i] = mentionWord(w)
	}
	msg = strings.Join(words, " ")
	if !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, ellipsis) {
		msg += "."
	}
	return head + ": " + msg
}

// mentionWord renders a word of a rule that is a Slack user or group id
// ("slack:U0ALICE", "U0BOB,", "S0OPS;") as a mention, keeping trailing
// punctuation. Ids need a digit, so that a capitalised word is never taken
// for one.
func mentionWord(w string) string {
	core := strings.TrimRight(w, ",;.)")
	id := strings.TrimPrefix(core, "slack:")
	if !slackID.MatchString(id) || !strings.ContainsAny(id, "0123456789") {
		return w
	}
	return mention(id) + w[len(core):]
}

var (
	dateTokenPattern = regexp.MustCompile(`<!date\^[0-9]+\^[^|>]*\|([^>]*)>`)
	userToken        = regexp.MustCompile(`<@([A-Z0-9]+)>`)
	subteamToken     = regexp.MustCompile(`<!subteam\^([A-Z0-9]+)>`)
)

// PlainText turns one of this package's mrkdwn texts into plain text, for
// places Slack shows without formatting (a modal's input error): a date
// token becomes its fallback, a mention "@U…", and the escapes are undone.
func PlainText(mrkdwn string) string {
	s := dateTokenPattern.ReplaceAllString(mrkdwn, "$1")
	s = userToken.ReplaceAllString(s, "@$1")
	s = subteamToken.ReplaceAllString(s, "@$1")
	s = strings.NewReplacer("*", "", "&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
	return s
}
