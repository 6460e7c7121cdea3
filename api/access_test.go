package api

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/require"
)

// accessTokens are the principals of the authorization table: ci asks,
// other is another agent, answerer and alice (Slack user U0ALICE) answer,
// admin does everything.
func accessTokens() []Token {
	scopes := func(s ...auth.Scope) []auth.Scope { return s }
	return []Token{
		{Secret: "tok-ci", Principal: auth.TokenPrincipal("ci", scopes(auth.ScopeAsk), "")},
		{Secret: "tok-other", Principal: auth.TokenPrincipal("other", scopes(auth.ScopeAsk), "")},
		{Secret: "tok-answerer", Principal: auth.TokenPrincipal("answerer", scopes(auth.ScopeAnswer), "")},
		{Secret: "tok-admin", Principal: auth.TokenPrincipal("admin", scopes(auth.ScopeAdmin), "")},
		{Secret: "tok-alice", Principal: auth.TokenPrincipal("alice", scopes(auth.ScopeAnswer), "U0ALICE")},
	}
}

var everyone = []string{"ci", "other", "answerer", "admin", "alice"}

// as is the Authorization header of token who.
func as(who string) []string { return []string{"Authorization", "Bearer tok-" + who} }

// questionKinds are the questions of the table, as ci asks them, and how
// each is answered.
var questionKinds = []struct{ name, ask, answer string }{
	{"plain", `{"question":"Deadline?"}`, `{"response":{"value":"friday"}}`},
	{"approval", `{"question":"Deploy?","type":"approval"}`, `{"response":{"value":"approve"}}`},
	{"assigned_to_alice", `{"question":"Deadline?","assignees":["U0ALICE"]}`, `{"response":{"value":"friday"}}`},
	{"assigned_to_bob", `{"question":"Deadline?","assignees":["U0BOB"]}`, `{"response":{"value":"friday"}}`},
}

// Refusals, as the rules word them.
const (
	lacksAnswer  = "lacks the answer scope"
	didNotAsk    = "did not ask"
	notAssignee  = "is not one of them"
	onlyReceiver = "only api:ci, which asked"
)

// allowedTo is who may do what to which kind of question: "" allows,
// anything else is a fragment of the refusal.
func allowedTo(action, kind, who string) string {
	switch action {
	case "read":
		if who == "other" {
			return didNotAsk
		}
	case "answer", "cancel":
		switch {
		case who == "ci" && action == "cancel", who == "admin":
			return ""
		case who == "ci" || who == "other":
			return lacksAnswer
		case kind == "assigned_to_alice" && who == "answerer",
			kind == "assigned_to_bob" && (who == "answerer" || who == "alice"):
			return notAssignee
		}
	case "receive":
		if who != "ci" {
			return onlyReceiver
		}
	}
	return ""
}

func TestAuthorizationTable(t *testing.T) {
	e := newEnv(t, ServerConfig{Tokens: accessTokens()})
	ask := func(t *testing.T, job, body string) string {
		t.Helper()
		r := e.call(t, "POST", "/api/jobs/"+job+"/questions", body, as("ci")...)
		require.Equal(t, http.StatusCreated, r.status, r.raw)
		return r.body["questionId"].(string)
	}
	for _, action := range []string{"read", "answer", "cancel", "receive"} {
		for _, kind := range questionKinds {
			for _, who := range everyone {
				want := allowedTo(action, kind.name, who)
				outcome := "allowed"
				if want != "" {
					outcome = "refused"
				}
				t.Run(fmt.Sprintf("%s_%s_%s_is_%s", who, action, kind.name, outcome), func(t *testing.T) {
					id := ask(t, "job-"+kind.name, kind.ask)
					var r reply
					switch action {
					case "read":
						r = e.call(t, "GET", "/api/questions/"+id, "", as(who)...)
					case "answer":
						r = e.call(t, "POST", "/api/questions/"+id+"/answer", kind.answer, as(who)...)
					case "cancel":
						r = e.call(t, "POST", "/api/questions/"+id+"/cancel", "", as(who)...)
					case "receive":
						settled := e.call(t, "POST", "/api/questions/"+id+"/answer", kind.answer, as("admin")...)
						require.Equal(t, http.StatusOK, settled.status, settled.raw)
						r = e.call(t, "POST", "/api/questions/"+id+"/receive", "", as(who)...)
					}
					if want == "" {
						require.Equal(t, http.StatusOK, r.status, r.raw)
						return
					}
					requireError(t, r, http.StatusForbidden, fault.EFORBIDDEN)
					require.Contains(t, r.body["message"], want)
					require.Contains(t, r.body["message"], "api:"+who)
				})
			}
		}
	}
	t.Run("asker_with_the_answer_scope_may_not_answer_its_own_question", func(t *testing.T) {
		r := e.call(t, "POST", "/api/jobs/job-admin/questions", `{"question":"Deadline?"}`, as("admin")...)
		require.Equal(t, http.StatusCreated, r.status, r.raw)
		id := r.body["questionId"].(string)
		r = e.call(t, "POST", "/api/questions/"+id+"/answer", `{"response":{"value":"friday"}}`, as("admin")...)
		requireError(t, r, http.StatusForbidden, fault.EFORBIDDEN)
		require.Contains(t, r.body["message"], "api:admin asked "+id+" and may not answer it")
	})
	t.Run("ask_only_tokens_list_only_their_own_pending_questions", func(t *testing.T) {
		mine := ask(t, "job-list", `{"question":"Mine?"}`)
		r := e.call(t, "POST", "/api/jobs/job-list/questions", `{"question":"Theirs?"}`, as("other")...)
		requireError(t, r, http.StatusForbidden, fault.EFORBIDDEN) // the run is api:ci's
		r = e.call(t, "POST", "/api/jobs/job-list-other/questions", `{"question":"Theirs?"}`, as("other")...)
		require.Equal(t, http.StatusCreated, r.status, r.raw)
		theirs := r.body["questionId"].(string)
		for who, want := range map[string][]string{
			"ci": {mine}, "other": {theirs}, "answerer": {mine, theirs}, "admin": {mine, theirs}, "alice": {mine, theirs},
		} {
			var got []string
			for _, run := range []string{"job-list", "job-list-other"} {
				r := e.call(t, "GET", "/api/questions/pending?jobId="+run, "", as(who)...)
				if (who == "ci") != (run == "job-list") && (who == "ci" || who == "other") {
					requireError(t, r, http.StatusForbidden, fault.EFORBIDDEN) // another's run
					continue
				}
				require.Equal(t, http.StatusOK, r.status, r.raw)
				for _, q := range r.body["questions"].([]any) {
					got = append(got, q.(map[string]any)["id"].(string))
				}
			}
			require.ElementsMatch(t, want, got, who)
		}
	})
	t.Run("ask_only_tokens_read_only_their_own_runs", func(t *testing.T) {
		ask(t, "job-run", `{"question":"Deadline?"}`)
		for _, who := range everyone {
			r := e.call(t, "GET", "/api/jobs/job-run", "", as(who)...)
			if who == "other" {
				// Another agent's run is refused, naming the rule.
				requireError(t, r, http.StatusForbidden, fault.EFORBIDDEN)
				require.Contains(t, r.body["message"], "run job-run belongs to api:ci; api:other did not start it")
				continue
			}
			require.Equal(t, http.StatusOK, r.status, "%s: %s", who, r.raw)
			require.Equal(t, "waiting_for_input", r.body["phase"], who)
		}
	})
	t.Run("approval_defaulting_to_approve_is_400_naming_the_field", func(t *testing.T) {
		r := e.call(t, "POST", "/api/jobs/job-1/questions", `{"question":"Deploy?","type":"approval","defaultResponse":{"value":"approve"}}`, as("ci")...)
		requireError(t, r, http.StatusBadRequest, fault.EINVALID)
		require.Contains(t, r.body["message"], "defaultResponse")
	})
}

// eventsUntil reads events from ch up to and including the first about
// question id.
func eventsUntil(t *testing.T, ch <-chan sse, id string) []sse {
	t.Helper()
	var out []sse
	for {
		ev := next(t, ch)
		out = append(out, ev)
		if ev.data["questionId"] == id {
			return out
		}
	}
}

func TestEventsByPrincipal(t *testing.T) {
	e := newEnv(t, ServerConfig{Tokens: accessTokens()})
	streams := map[string]<-chan sse{}
	for _, who := range everyone {
		streams[who] = e.openEvents(t, "", as(who)...)
	}
	ask := func(who, job string) string {
		r := e.call(t, "POST", "/api/jobs/"+job+"/questions", `{"question":"Deadline?"}`, as(who)...)
		require.Equal(t, http.StatusCreated, r.status, r.raw)
		return r.body["questionId"].(string)
	}
	ciQ := ask("ci", "job-ci")
	requireError(t, e.call(t, "GET", "/api/questions/"+ciQ, "", as("other")...), http.StatusForbidden, fault.EFORBIDDEN)
	otherQ := ask("other", "job-other")
	marker := ask("ci", "job-ci")

	// kinds lists "type:question" of a stream up to the marker (or, for
	// other, up to its own question), without status events.
	kinds := func(who, until string) []string {
		var out []string
		for _, ev := range eventsUntil(t, streams[who], until) {
			if ev.event != "status" {
				out = append(out, fmt.Sprintf("%s:%v", ev.event, ev.data["questionId"]))
			}
		}
		return out
	}
	all := []string{"question_asked:" + ciQ, "question_asked:" + otherQ, "question_asked:" + marker}
	t.Run("admin_reads_refusals", func(t *testing.T) {
		evs := eventsUntil(t, streams["admin"], otherQ)
		var refused []sse
		for _, ev := range evs {
			if ev.event == string(hitl.EventRefused) {
				refused = append(refused, ev)
			}
		}
		require.Len(t, refused, 1)
		require.Equal(t, ciQ, refused[0].data["questionId"])
		require.Equal(t, "api:other", refused[0].data["by"])
		require.Equal(t, "read", refused[0].data["action"])
		require.Contains(t, refused[0].data["reason"], didNotAsk)
	})
	t.Run("answerers_do_not_read_refusals", func(t *testing.T) {
		require.Equal(t, all, kinds("answerer", marker))
		require.Equal(t, all, kinds("alice", marker))
	})
	t.Run("ask_only_token_reads_only_its_own_questions", func(t *testing.T) {
		require.Equal(t, []string{"question_asked:" + ciQ, "question_asked:" + marker}, kinds("ci", marker))
		require.Equal(t, []string{"question_asked:" + otherQ}, kinds("other", otherQ))
	})
}
