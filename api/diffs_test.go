package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An operation's diffs travel in the API JSON as "diffs" (additive): the
// question carries them as sent; a bad one is a 400 naming it.
func TestOperationDiffsOverHTTP(t *testing.T) {
	toks := []Token{{Secret: "tok-ci", Principal: auth.TokenPrincipal("ci", nil, "")}}
	e := newEnv(t, ServerConfig{Tokens: toks})
	require.NoError(t, e.svc.Policies.LoadPolicy(context.Background(), nil))
	const body = `{"runId":"diff-1","operation":"Edit src/a.go","opType":"file_write","resource":"src/a.go",` +
		`"diffs":[{"path":"src/a.go","change":"modify","added":1,"removed":1,"unified":"--- a/src/a.go\n+++ b/src/a.go\n@@ -1 +1 @@\n-x\n+y\n"}]}`
	t.Run("a diff is kept with the question", func(t *testing.T) {
		r := e.call(t, "POST", "/api/approvals", body, as("ci")...)
		require.Equal(t, http.StatusOK, r.status, r.raw)
		id, _ := r.body["questionId"].(string)
		require.NotEmpty(t, id, r.raw)
		q, err := client.NewClient(e.http.URL, "tok-ci").Question(context.Background(), id)
		require.NoError(t, err)
		require.Len(t, q.Operation.Diffs, 1)
		assert.Equal(t, hitl.FileDiff{Path: "src/a.go", Change: hitl.FileModify, Added: 1, Removed: 1,
			Unified: "--- a/src/a.go\n+++ b/src/a.go\n@@ -1 +1 @@\n-x\n+y\n"}, q.Operation.Diffs[0])
	})
	for name, tc := range map[string]struct{ body, msg string }{
		"an unknown change":     {`{"operation":"x","opType":"file_write","diffs":[{"path":"a","change":"rename"}]}`, `change "rename" is invalid`},
		"a diff without a path": {`{"operation":"x","opType":"file_write","diffs":[{"change":"new"}]}`, "diffs[0]: path is required"},
		"an unknown field":      {`{"operation":"x","opType":"file_write","diffs":[{"path":"a","change":"new","patch":"x"}]}`, "patch"},
		"a diff of another file than the resource": {`{"operation":"Edit /etc/passwd","opType":"file_write","resource":"/etc/passwd",` +
			`"diffs":[{"path":"/tmp/harmless.txt","change":"modify","added":1,"removed":1,"unified":"@@ -1 +1 @@\n-x\n+y\n"}]}`,
			`diffs[0]: path "/tmp/harmless.txt" is not the operation's file (/etc/passwd)`},
		"counts that disagree with the hunk": {`{"operation":"Edit /etc/passwd","opType":"file_write","resource":"/etc/passwd",` +
			`"diffs":[{"path":"/etc/passwd","change":"modify","added":0,"removed":0,"unified":"@@ -1 +1 @@\n-x\n+y\n"}]}`,
			"diffs[0]: counts +0 −0 disagree with the unified text (+1 −1)"},
		"text that is not a unified diff": {`{"operation":"Edit /etc/passwd","opType":"file_write","resource":"/etc/passwd",` +
			`"diffs":[{"path":"/etc/passwd","change":"modify","unified":"looks fine to me\n"}]}`,
			"diffs[0]: unified is not a unified diff"},
	} {
		t.Run(name+" is refused", func(t *testing.T) {
			r := e.call(t, "POST", "/api/approvals", tc.body, as("ci")...)
			requireError(t, r, http.StatusBadRequest, fault.EINVALID)
			assert.Contains(t, r.body["message"], tc.msg)
		})
	}
}
