package blocks

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

// golden compares v, marshalled and indented, with testdata/<name>.golden.json.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got := goldenJSON(t, v)
	path := filepath.Join("testdata", name+".golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./blocks -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test ./blocks -update to accept):\n%s", path, firstDiff(string(want), string(got)))
	}
}

// goldenJSON marshals v indented, with < > & unescaped so the files read
// like what Slack receives.
func goldenJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`\\u00`)) {
		b = []byte(strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b)))
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want %s\n  got  %s", i+1, wl, gl)
		}
	}
	return "(same lines, different bytes)"
}

var allowedFixture = []string{"@U024BE7LH", "!subteam^S0614TZR7", "@U0ANSWER1", "@U0HOMEUSER",
	"https://hitl.example.com/q/q_0123456789abcdef|Open in the web inbox"} // the web inbox link of web.url

// reopenedNotice is the root's notice on a question whose sensitive answer
// was lost to a restart.
const reopenedNotice = "The service restarted before the agent received this sensitive answer, so it was never stored: please answer again."

func TestQuestionMessageGolden(t *testing.T) {
	choiceDesc := question(hitl.Blocking, hitl.ChoiceResponse)
	choiceDesc.Options[0].Description = "the big one"
	sel := question(hitl.ErrorRecovery, hitl.ChoiceResponse)
	sel.Options = manyOptions(12)
	sel.Context.ErrorDetails = "pq: connection refused\n```\nat <main.go:42> & retry=3"
	pw := question(hitl.Blocking, hitl.TextResponse)
	pw.Question, pw.InputType, pw.Sensitive = "Paste the staging database password", hitl.PasswordInput, true
	nb := question(hitl.NonBlocking, hitl.BooleanResponse)
	nb.TimeoutAt, nb.DefaultResponse = nil, &hitl.Response{Type: hitl.BooleanResponse, Value: false}
	errq := question(hitl.ErrorRecovery, hitl.TextResponse)
	errq.Question = "API failed, what should I do?"
	errq.Context.ErrorDetails = "HTTP 503 from <https://api.example.com> & retry budget exhausted"
	errq.Context.SuggestedOptions = []string{"retry", "skip"}
	esc := question(hitl.Blocking, hitl.TextResponse)
	esc.Question = "Ping <!channel> & <@U123> about *this* `now`? <https://evil.example|click>"
	long := question(hitl.Blocking, hitl.TextResponse)
	long.Question = hostileLong
	noMention := question(hitl.Blocking, hitl.BooleanResponse)
	reopened := question(hitl.Blocking, hitl.TextResponse)
	reopened.Question, reopened.Sensitive, reopened.Notice = "Paste the deploy key", true, reopenedNotice
	bare := &hitl.Question{ID: "q_bare", Type: hitl.Blocking, ResponseType: hitl.TextResponse, Status: hitl.StatusPending, Question: "Anything?"}

	cases := []struct {
		name string
		q    *hitl.Question
		opts MessageOptions
	}{
		{"message_approval_pending", question(hitl.Approval, hitl.ApprovalResponse), opts},
		{"message_boolean_pending", question(hitl.Blocking, hitl.BooleanResponse), opts},
		{"message_boolean_no_mentions", noMention, MessageOptions{Now: t0}},
		{"message_choice_buttons_pending", choiceDesc, opts},
		{"message_choice_select_pending", sel, opts},
		{"message_text_pending", question(hitl.Blocking, hitl.TextResponse), opts},
		{"message_sensitive_pending", pw, opts},
		{"message_non_blocking_pending", nb, opts},
		{"message_error_recovery_pending", errq, opts},
		{"message_escaped_pending", esc, opts},
		{"message_long_text_pending", long, opts},
		{"message_minimal_pending", bare, opts},
		{"message_sensitive_reopened", reopened, opts},
		{"message_web_link_pending", question(hitl.Approval, hitl.ApprovalResponse), MessageOptions{Now: t0, MentionAssignees: true, WebURL: "https://hitl.example.com/"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := QuestionMessage(c.q, c.opts)
			validate(t, m, allowedFixture...)
			golden(t, c.name, m)
		})
	}
	t.Run("long_text_is_truncated_and_chunked", func(t *testing.T) {
		m := QuestionMessage(long, opts)
		if !m.Truncated {
			t.Error("Truncated not set")
		}
		chunks := FullTextChunks(long)
		if len(chunks) < 7 {
			t.Errorf("%d chunks for a 20000-character question", len(chunks))
		}
		golden(t, "chunks_long_text", chunks)
	})
}

func TestSettledMessageGolden(t *testing.T) {
	text := question(hitl.Blocking, hitl.TextResponse)
	choice := question(hitl.Blocking, hitl.ChoiceResponse)
	boolean := question(hitl.Blocking, hitl.BooleanResponse)
	approval := question(hitl.Approval, hitl.ApprovalResponse)
	pw := question(hitl.Blocking, hitl.TextResponse)
	pw.InputType, pw.Sensitive = hitl.PasswordInput, true
	withDefault := question(hitl.Blocking, hitl.ChoiceResponse)
	withDefault.DefaultResponse = &hitl.Response{Type: hitl.ChoiceResponse, Value: "sqlite"}

	cases := []struct {
		name string
		q    *hitl.Question
	}{
		{"settled_text_answered", answered(text.Clone(), "slack:U0ANSWER1", &hitl.Response{Type: hitl.TextResponse, Value: "Postgres first", Text: "it has the most tables"})},
		{"settled_text_answered_multiline", answered(text.Clone(), "slack:U0ANSWER1", &hitl.Response{Type: hitl.TextResponse, Value: "First *postgres*,\nthen <mysql> & sqlite"})},
		{"settled_text_answered_cli", answered(text.Clone(), "cli:alice", &hitl.Response{Type: hitl.TextResponse, Value: "postgres"})},
		{"settled_choice_answered", answered(choice.Clone(), "slack:U0ANSWER1", &hitl.Response{Type: hitl.ChoiceResponse, Value: "mysql"})},
		{"settled_boolean_answered", answered(boolean.Clone(), "slack:U0ANSWER1", &hitl.Response{Type: hitl.BooleanResponse, Value: false})},
		{"settled_approval_approved", answered(approval.Clone(), "slack:U0ANSWER1", &hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Approve})},
		{"settled_approval_approved_message", answered(approval.Clone(), "slack:U0ANSWER1", &hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Approve, Text: "go ahead, but keep a backup"})},
		{"settled_approval_denied", answered(approval.Clone(), "slack:U0ANSWER1", &hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Deny, Text: "those are not duplicates"})},
		{"settled_approval_replied", answered(approval.Clone(), "slack:U0ANSWER1", &hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Reply, Text: "use the *staging* database instead"})},
		{"settled_sensitive_answered", answered(pw.Clone(), "slack:U0ANSWER1", &hitl.Response{Type: hitl.TextResponse, Value: "hunter2"})},
		{"settled_sensitive_redacted", answered(pw.Clone(), "slack:U0ANSWER1", &hitl.Response{Type: hitl.TextResponse, Redacted: true})},
		{"settled_timeout_default", timedOut(withDefault.Clone())},
		{"settled_timeout_no_default", timedOut(text.Clone())},
		{"settled_cancelled", cancelled(text.Clone(), "api:runner", "run loop-1703123456-12345 finished")},
		{"settled_cancelled_no_reason", cancelled(approval.Clone(), "", "")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := SettledMessage(c.q, opts)
			validate(t, m, allowedFixture...)
			golden(t, c.name, m)
			for _, b := range m.Blocks {
				if b.BlockType() == "actions" {
					t.Error("settled message keeps an actions block")
				}
			}
		})
	}
}

func TestModalGolden(t *testing.T) {
	pw := question(hitl.Blocking, hitl.TextResponse)
	pw.InputType, pw.Sensitive = hitl.PasswordInput, true
	approval := question(hitl.Approval, hitl.ApprovalResponse)
	cases := []struct {
		name string
		v    any
	}{
		{"modal_answer_text", AnswerModal(question(hitl.Blocking, hitl.TextResponse), "C024BE91L", "1710428966.000100")},
		{"modal_answer_sensitive", AnswerModal(pw, "C024BE91L", "1710428966.000100")},
		{"modal_answer_choice_from_home", AnswerModal(question(hitl.Blocking, hitl.ChoiceResponse), "", "")},
		{"modal_deny", DenyModal(approval, "C024BE91L", "1710428966.000100")},
		{"modal_approve", ApproveModal(approval, "C024BE91L", "1710428966.000100")},
		{"modal_reply", ReplyModal(approval, "C024BE91L", "1710428966.000100")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			validate(t, c.v, allowedFixture...)
			golden(t, c.name, c.v)
		})
	}
}

func TestHomeGolden(t *testing.T) {
	three := []*hitl.Question{
		question(hitl.Approval, hitl.ApprovalResponse),
		question(hitl.Blocking, hitl.ChoiceResponse),
		question(hitl.Blocking, hitl.TextResponse),
	}
	for i, q := range three {
		q.ID = fmt.Sprintf("q_home%d", i)
		q.CreatedAt = t0.Add(time.Duration(i) * time.Minute)
	}
	recent := []*hitl.Question{
		answered(question(hitl.Blocking, hitl.BooleanResponse), "slack:U0HOMEUSER", &hitl.Response{Type: hitl.BooleanResponse, Value: true}),
		answered(question(hitl.Approval, hitl.ApprovalResponse), "slack:U0HOMEUSER", &hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Deny, Text: "no"}),
	}
	recent[0].ID, recent[1].ID = "q_done0", "q_done1"
	reopened := question(hitl.Blocking, hitl.TextResponse)
	reopened.Sensitive, reopened.Notice = true, reopenedNotice
	recent[1].RespondedAt = at(20 * time.Minute)

	var many, manyRecent []*hitl.Question
	for i := range 40 {
		q := question(hitl.Blocking, hitl.BooleanResponse)
		q.ID, q.CreatedAt = fmt.Sprintf("q_many%02d", i), t0.Add(time.Duration(i)*time.Minute)
		many = append(many, q)
		r := answered(question(hitl.Blocking, hitl.TextResponse), "slack:U0HOMEUSER", &hitl.Response{Type: hitl.TextResponse, Value: "ok"})
		r.ID, r.RespondedAt = fmt.Sprintf("q_old%02d", i), at(time.Duration(i)*time.Minute)
		manyRecent = append(manyRecent, r)
	}
	cases := []struct {
		name            string
		waiting, recent []*hitl.Question
	}{
		{"home_empty", nil, nil},
		{"home_three", three, recent},
		{"home_many", many, manyRecent},
		{"home_reopened", []*hitl.Question{reopened}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := HomeView("U0HOMEUSER", c.waiting, c.recent, opts)
			validate(t, v, allowedFixture...)
			golden(t, c.name, v)
		})
	}
	t.Run("home_many_says_how_many_more", func(t *testing.T) {
		b := string(goldenJSON(t, HomeView("U0HOMEUSER", many, manyRecent, opts)))
		if !strings.Contains(b, "more — use `hitl pending`") {
			t.Error("no \"…and N more\" line")
		}
	})
	t.Run("home_more_waiting_than_listed", func(t *testing.T) {
		v := Home{User: "U0HOMEUSER", Waiting: three, MoreWaiting: true, Recent: recent}.View(opts)
		validate(t, v, allowedFixture...)
		golden(t, "home_more", v)
	})
	t.Run("home_many_more_waiting_than_listed", func(t *testing.T) {
		v := Home{User: "U0HOMEUSER", Waiting: many, MoreWaiting: true}.View(opts)
		validate(t, v, allowedFixture...)
		if b := string(goldenJSON(t, v)); !strings.Contains(b, "Waiting on you (40+)") || !strings.Contains(b, "+ more — use `hitl pending`") {
			t.Error("the counts do not say there are more than listed")
		}
	})
	t.Run("home_lists_newest_first", func(t *testing.T) {
		b := string(goldenJSON(t, HomeView("U0HOMEUSER", three, nil, opts)))
		if i, j := strings.Index(b, "q:q_home2"), strings.Index(b, "q:q_home0"); i < 0 || j < 0 || i > j {
			t.Errorf("newest question not first (q_home2 at %d, q_home0 at %d)", i, j)
		}
	})
	t.Run("home_lists_a_question_once", func(t *testing.T) {
		v := HomeView("U0HOMEUSER", append(three, three[0]), three, opts)
		validate(t, v, allowedFixture...)
	})
}

func TestEphemeralGolden(t *testing.T) {
	texts := map[string]string{
		"already_answered":       AlreadySettled(Settlement{Status: hitl.StatusAnswered, By: "slack:U0ANSWER1", At: t0}),
		"already_answered_cli":   AlreadySettled(Settlement{Status: hitl.StatusAnswered, By: "cli:alice"}),
		"already_timed_out":      AlreadySettled(Settlement{Status: hitl.StatusTimeout, By: auth.ActorSystem, At: t0}),
		"already_cancelled":      AlreadySettled(Settlement{Status: hitl.StatusCancelled, By: "api:runner", At: t0}),
		"already_pending":        AlreadySettled(Settlement{Status: hitl.StatusPending}),
		"error_invalid":          ErrorText(fault.EINVALID, `"maybe" is not one of the options: Postgres, MySQL`),
		"error_not_found":        ErrorText(fault.ENOTFOUND, "no question q_x"),
		"error_forbidden":        ErrorText(fault.EFORBIDDEN, ""),
		"refused_asker":          ErrorText(fault.EFORBIDDEN, "slack:U0ANSWER1 asked q_0123456789abcdef and may not answer it: a person decides, not the agent that asked"),
		"refused_not_assignee":   ErrorText(fault.EFORBIDDEN, "q_0123456789abcdef is assigned to U024BE7LH, S0614TZR7; slack:U0ANSWER1 is not one of them"),
		"refused_scope":          ErrorText(fault.EFORBIDDEN, "slack:U0ANSWER1 is not one of the Slack answerers (slack.answerers)"),
		"refused_token":          ErrorText(fault.EFORBIDDEN, "api:WORKER1 lacks the answer scope"),
		"error_internal":         ErrorText(fault.EINTERNAL, "disk on fire"),
		"error_unknown_code":     ErrorText("weird", "x"),
		"error_escapes_<!here>&": ErrorText(fault.EINVALID, "<!here> & <@U1>"),
	}
	golden(t, "ephemeral", texts)
}
