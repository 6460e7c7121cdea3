package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/require"
)

func TestReassign(t *testing.T) {
	e := newEnv(t, ServerConfig{Tokens: accessTokens()})
	ask := func(t *testing.T, body string) string {
		t.Helper()
		r := e.call(t, "POST", "/api/jobs/job-1/questions", body, as("ci")...)
		require.Equal(t, http.StatusCreated, r.status, r.raw)
		return r.body["questionId"].(string)
	}
	t.Run("an_answerer_hands_a_question_on", func(t *testing.T) {
		id := ask(t, `{"question":"Deadline?","assignees":["U0ALICE"]}`)
		r := e.call(t, "POST", "/api/questions/"+id+"/reassign", `{"to":["U0BOB","S0OPS"]}`, as("alice")...)
		require.Equal(t, http.StatusOK, r.status, r.raw)
		q := sub(t, r.body, "question")
		require.Equal(t, []any{"U0BOB", "S0OPS"}, q["assignees"])
		require.Equal(t, "U0ALICE", q["handedBy"])
	})
	t.Run("the_asker_is_403", func(t *testing.T) {
		id := ask(t, `{"question":"Deadline?"}`)
		r := e.call(t, "POST", "/api/questions/"+id+"/reassign", `{"to":["U0BOB"]}`, as("ci")...)
		requireError(t, r, http.StatusForbidden, fault.EFORBIDDEN)
		require.Contains(t, r.body["message"], lacksAnswer)
	})
	t.Run("not_an_assignee_is_403", func(t *testing.T) {
		id := ask(t, `{"question":"Deadline?","assignees":["U0BOB"]}`)
		r := e.call(t, "POST", "/api/questions/"+id+"/reassign", `{"to":["U0ALICE"]}`, as("alice")...)
		requireError(t, r, http.StatusForbidden, fault.EFORBIDDEN)
	})
	for _, tc := range []struct{ name, body, want string }{
		{"no_one_is_400", `{"to":[]}`, "name the Slack users"},
		{"a_name_is_400", `{"to":["bob"]}`, "is not a Slack user"},
		{"no_body_is_400", ``, "required"},
		{"unknown_field_is_400", `{"to":["U0BOB"],"by":"me"}`, `"by"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := ask(t, `{"question":"Deadline?"}`)
			r := e.call(t, "POST", "/api/questions/"+id+"/reassign", tc.body, as("answerer")...)
			requireError(t, r, http.StatusBadRequest, fault.EINVALID)
			require.Contains(t, r.body["message"], tc.want)
		})
	}
	t.Run("unknown_id_is_404", func(t *testing.T) {
		requireError(t, e.call(t, "POST", "/api/questions/q_nope/reassign", `{"to":["U0BOB"]}`, as("admin")...), 404, fault.ENOTFOUND)
	})
	t.Run("the_client_reassigns", func(t *testing.T) {
		id := ask(t, `{"question":"Deadline?"}`)
		c := client.NewClient(e.http.URL, "tok-admin")
		q, err := c.Reassign(context.Background(), id, []string{"U0BOB"})
		require.NoError(t, err)
		require.Equal(t, []string{"U0BOB"}, q.Assignees)
		require.Equal(t, "api:admin", q.HandedBy)
		_, err = c.Reassign(context.Background(), id, []string{"nobody"})
		require.Equal(t, fault.EINVALID, fault.Code(err))
	})
}
