package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/internal/slackfake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

const (
	auditAdminSecret = "audit-admin-secret-0123456789"
	auditBobSecret   = "audit-bob-secret-0123456789ab"
)

// withAuditTrust adds an admin token and a person's token (bob, who
// answers) to withTrust's.
func withAuditTrust(c *config.Config, m *Main) {
	withTrust(c, m)
	c.Tokens = append(c.Tokens,
		config.Token{Name: "root", Token: auditAdminSecret, Scopes: []string{"admin"}},
		config.Token{Name: "bob", Token: auditBobSecret, Scopes: []string{"answer"}})
}

// auditRecords reads the whole trail through the API as the admin.
func auditRecords(t *testing.T, ctx context.Context, m *Main) []*hitl.AuditRecord {
	t.Helper()
	c := client.NewClient(m.URL(), auditAdminSecret)
	var out []*hitl.AuditRecord
	f := hitl.AuditFilter{Limit: 2}
	for {
		page, err := c.AuditPage(ctx, f)
		require.NoError(t, err)
		out = append(out, page.Records...)
		if page.NextAfter == 0 {
			return out
		}
		f.After = page.NextAfter
	}
}

// TestAuditEdges: each kind of decision, through each edge it can come
// through (API, web, Slack), is one record naming who, where and what;
// hitl audit export writes it in both formats and hitl audit verify
// passes; only admins read it.
func TestAuditEdges(t *testing.T) {
	e := slackEnvOn(t, slackfake.New(t, slackfake.FailOnReject()), 30*time.Second, withAuditTrust)
	e.api = client.NewClient(e.m.URL(), ciSecret)
	ctx := e.ctx
	bob := client.NewClient(e.m.URL(), auditBobSecret)
	root := client.NewClient(e.m.URL(), auditAdminSecret)

	// API: asked by ci, answered by bob.
	q1, _, err := e.api.Create(ctx, "run-audit", hitl.NewQuestion{Question: "Which DB?"})
	require.NoError(t, err)
	_, err = bob.Answer(ctx, q1.ID, hitl.Response{Value: "staging"})
	require.NoError(t, err)
	// Slack: U0ALICE approves with a click.
	q2, ch := e.ask(t, "run-audit", hitl.NewQuestion{Question: "Deploy?", Type: hitl.Approval})
	e.click(t, "U0ALICE", e.posted(t, testChannel, q2), blocks.ActionApprove)
	e.settled(t, ch)
	// Web: bob signs in with his token, denies with a reason, signs out.
	q3, _, err := e.api.Create(ctx, "run-audit", hitl.NewQuestion{Question: "Drop the table?", Type: hitl.Approval})
	require.NoError(t, err)
	c := browserClient(t)
	_, form := page(t, c, http.MethodGet, e.m.URL()+"/login", nil)
	csrf := csrfOf.FindStringSubmatch(form)
	require.NotNil(t, csrf, form)
	status, inbox := page(t, c, http.MethodPost, e.m.URL()+"/login", url.Values{"csrf": {csrf[1]}, "token": {auditBobSecret}})
	require.Equal(t, http.StatusOK, status, inbox)
	csrf = csrfOf.FindStringSubmatch(inbox)
	require.NotNil(t, csrf, inbox)
	status, body := page(t, c, http.MethodPost, e.m.URL()+"/q/"+q3.ID+"/answer", url.Values{"csrf": {csrf[1]}, "decision": {"deny"}, "reason": {"not today"}})
	require.Equal(t, http.StatusOK, status, body)
	status, body = page(t, c, http.MethodPost, e.m.URL()+"/logout", url.Values{"csrf": {csrf[1]}})
	require.Less(t, status, 400, body)
	// Cancelled by its asker, a refusal, a policy change.
	q4, _, err := e.api.Create(ctx, "run-audit", hitl.NewQuestion{Question: "Still needed?"})
	require.NoError(t, err)
	_, err = e.api.Cancel(ctx, q4.ID, "not needed")
	require.NoError(t, err)
	_, err = e.api.Answer(ctx, q4.ID, hitl.Response{Value: "x"})
	require.Error(t, err)
	_, err = root.SetPolicy(ctx, []hitl.Rule{{Name: "ls", OpType: hitl.OpShell, Resource: "ls", Effect: hitl.EffectAllow}})
	require.NoError(t, err)

	recs := auditRecords(t, ctx, e.m)
	type seen struct {
		kind  hitl.AuditKind
		actor string
		edge  string
	}
	var got []seen
	byQ := map[string][]*hitl.AuditRecord{}
	for _, r := range recs {
		got = append(got, seen{r.Kind, r.Actor, r.Edge})
		byQ[r.QuestionID] = append(byQ[r.QuestionID], r)
	}
	for _, want := range []struct {
		name string
		s    seen
	}{
		{"asked through the API", seen{hitl.AuditAsked, "api:ci", auth.EdgeAPI}},
		{"answered through the API", seen{hitl.AuditAnswered, "api:bob", auth.EdgeAPI}},
		{"answered through Slack", seen{hitl.AuditAnswered, "slack:U0ALICE", auth.EdgeSlack}},
		{"signed in to the web", seen{hitl.AuditSignedIn, "api:bob", auth.EdgeWeb}},
		{"answered through the web", seen{hitl.AuditAnswered, "api:bob", auth.EdgeWeb}},
		{"signed out of the web", seen{hitl.AuditSignedOut, "api:bob", auth.EdgeWeb}},
		{"cancelled through the API", seen{hitl.AuditCancelled, "api:ci", auth.EdgeAPI}},
		{"refused through the API", seen{hitl.AuditRefused, "api:ci", auth.EdgeAPI}},
		{"the policy changed through the API", seen{hitl.AuditPolicyChanged, "api:root", auth.EdgeAPI}},
	} {
		t.Run(want.name, func(t *testing.T) { assert.Contains(t, got, want.s) })
	}
	assert.Equal(t, "staging", byQ[q1.ID][1].Answer)
	assert.Equal(t, "approve", byQ[q2.ID][1].Answer)
	assert.Equal(t, "deny", byQ[q3.ID][1].Answer)
	assert.Equal(t, "not today", byQ[q3.ID][1].Text)

	t.Run("hitl audit export --format jsonl: each line hashes to its hash, and chains", func(t *testing.T) {
		res := cliWith(t, ctx, e.m, cliOpts{token: auditAdminSecret}, "audit", "export")
		require.Equal(t, 0, res.code, res.stderr)
		lines := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
		require.Len(t, lines, len(recs))
		hashField := regexp.MustCompile(`,"hash":"([0-9a-f]{64})"}$`)
		prev := ""
		for i, line := range lines {
			m := hashField.FindStringSubmatch(line)
			require.NotNil(t, m, "line %d ends with its hash: %s", i+1, line)
			body := strings.TrimSuffix(line, m[0]) + "}"
			sum := sha256.Sum256([]byte(body))
			assert.Equal(t, m[1], hex.EncodeToString(sum[:]), "line %d: SHA-256 of the line without its hash", i+1)
			var r hitl.AuditRecord
			require.NoError(t, json.Unmarshal([]byte(line), &r))
			assert.Equal(t, prev, r.Prev, "line %d carries the hash of the line before", i+1)
			prev = m[1]
		}
	})
	t.Run("hitl audit export --format csv --since: a header and a row per record", func(t *testing.T) {
		res := cliWith(t, ctx, e.m, cliOpts{token: auditAdminSecret}, "audit", "export", "--format", "csv", "--since", "1h")
		require.Equal(t, 0, res.code, res.stderr)
		rows, err := csv.NewReader(strings.NewReader(res.stdout)).ReadAll()
		require.NoError(t, err)
		require.Len(t, rows, len(recs)+1)
		assert.Equal(t, auditColumns, rows[0])
		assert.Equal(t, recs[len(recs)-1].Hash, rows[len(rows)-1][len(auditColumns)-1])
		res = cliWith(t, ctx, e.m, cliOpts{token: auditAdminSecret}, "audit", "export", "--since", "2999-01-01")
		require.Equal(t, 0, res.code, res.stderr)
		assert.Empty(t, res.stdout, "nothing since a date to come")
	})
	t.Run("hitl audit verify passes an untouched trail", func(t *testing.T) {
		res := cliWith(t, ctx, e.m, cliOpts{token: auditAdminSecret}, "audit", "verify")
		require.Equal(t, 0, res.code, res.stderr)
		assert.Contains(t, res.stdout, "the audit trail verifies")
	})
	t.Run("only admins read the trail", func(t *testing.T) {
		for _, secret := range []string{auditBobSecret, ciSecret} {
			res := cliWith(t, ctx, e.m, cliOpts{token: secret}, "audit", "export")
			assert.Equal(t, exitForbidden, res.code, res.stderr)
			res = cliWith(t, ctx, e.m, cliOpts{token: secret}, "audit", "verify")
			assert.Equal(t, exitForbidden, res.code, res.stderr)
		}
		status, body := page(t, http.DefaultClient, http.MethodGet, e.m.URL()+"/api/audit?limit=x", nil)
		assert.Equal(t, http.StatusUnauthorized, status, body)
	})
	t.Run("bad input is a usage error", func(t *testing.T) {
		res := cliWith(t, ctx, e.m, cliOpts{token: auditAdminSecret}, "audit", "export", "--format", "xml")
		assert.Equal(t, exitUsage, res.code)
		res = cliWith(t, ctx, e.m, cliOpts{token: auditAdminSecret}, "audit", "export", "--since", "yesterday")
		assert.Equal(t, exitUsage, res.code)
		assert.Contains(t, res.stderr, "--since")
		res = cliWith(t, ctx, e.m, cliOpts{token: auditAdminSecret}, "audit", "shred")
		assert.Equal(t, exitUsage, res.code)
	})
}

// TestAuditVerifyTampered: a record edited in the stopped service's bbolt
// file makes hitl audit verify exit 13 naming it.
func TestAuditVerifyTampered(t *testing.T) {
	db := filepath.Join(t.TempDir(), "hitl.db")
	withDB := func(c *config.Config, m *Main) {
		c.DB = db
		withAuditTrust(c, m)
	}
	m := startMainNoCleanup(t, withDB)
	api := client.NewClient(m.URL(), ciSecret)
	for _, text := range []string{"One?", "Two?", "Three?"} {
		_, _, err := api.Create(t.Context(), "run-t", hitl.NewQuestion{Question: text})
		require.NoError(t, err)
	}
	require.NoError(t, m.Close())

	file, err := bolt.Open(db, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, file.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("audit"))
		key := []byte{0, 0, 0, 0, 0, 0, 0, 2}
		v := bytes.Replace(b.Get(key), []byte("Two?"), []byte("Six?"), 1)
		return b.Put(key, v)
	}))
	require.NoError(t, file.Close())

	m = startMain(t, withDB)
	res := cliWith(t, t.Context(), m, cliOpts{token: auditAdminSecret}, "audit", "verify")
	assert.Equal(t, exitAuditBroken, res.code, res.stdout+res.stderr)
	assert.Contains(t, res.stderr, "audit record 2 was changed")
}
