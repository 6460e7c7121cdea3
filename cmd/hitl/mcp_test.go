package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mcpPolicy is hookPolicy with the service's interaction threshold at 3,
// and no rate limits: a test asks faster than an agent may.
func mcpPolicy(c *config.Config, m *Main) {
	hookPolicy(c, m)
	three := 3
	c.InteractionThreshold = &three
	c.RateLimits = config.RateLimits{}
}

func TestMCPTools(t *testing.T) {
	m := startMain(t, mcpPolicy)
	c := nodeClient(t, m, "--run", "mcp-tools", "--progress-every", "200ms")
	ctx := context.Background()

	t.Run("tools listed with input schemas; the ask tool carries the threshold's instruction", func(t *testing.T) {
		c.send(map[string]any{"id": "list", "op": "list"})
		var listed struct {
			Tools []struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				InputSchema struct {
					Type       string                    `json:"type"`
					Properties map[string]map[string]any `json:"properties"`
					Required   []string                  `json:"required"`
				} `json:"inputSchema"`
			} `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(c.expect("list", "result").Result, &listed))
		byName := map[string]int{}
		for i, tool := range listed.Tools {
			byName[tool.Name] = i
			assert.Equal(t, "object", tool.InputSchema.Type, tool.Name)
			assert.NotEmpty(t, tool.Description, tool.Name)
		}
		require.Len(t, byName, 4)
		ask := listed.Tools[byName["ask_human"]]
		assert.Contains(t, ask.Description, hitl.ThresholdInstruction(3))
		assert.Equal(t, []string{"prompt"}, ask.InputSchema.Required)
		assert.Equal(t, []any{"text", "password", "confirmation"}, ask.InputSchema.Properties["input_type"]["enum"])
		for _, p := range []string{"sensitive", "options", "type", "timeout_minutes", "default"} {
			assert.Contains(t, ask.InputSchema.Properties, p)
		}
		perm := listed.Tools[byName["permission_prompt"]]
		assert.ElementsMatch(t, []string{"tool_name", "input"}, perm.InputSchema.Required)
		approval := listed.Tools[byName["request_approval"]]
		assert.Contains(t, approval.InputSchema.Properties, "op_type")
		assert.Contains(t, listed.Tools[byName["get_answer"]].InputSchema.Required, "question_id")
		assert.Contains(t, listed.Tools[byName["get_answer"]].InputSchema.Properties, "wait_seconds")
	})
	t.Run("ask_human with options: the chosen option", func(t *testing.T) {
		c.call("choice", "ask_human", map[string]any{"prompt": "Which environment?", "options": []string{"staging", "prod"}})
		q := awaitPending(t, m, "mcp-tools", 1)[0]
		assert.Equal(t, hitl.ChoiceResponse, q.ResponseType)
		assert.Equal(t, "hitl-test-client (MCP)", q.Context.Agent)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "staging").code)
		r := c.result("choice")
		assert.False(t, r.IsError)
		assert.Contains(t, r.text(), "staging")
		assert.Equal(t, "answered", r.StructuredContent["status"])
		assert.Equal(t, "staging", r.StructuredContent["answer"])
	})
	t.Run("ask_human confirmation: yes or no", func(t *testing.T) {
		c.call("confirm", "ask_human", map[string]any{"prompt": "Deploy now?", "input_type": "confirmation"})
		q := awaitPending(t, m, "mcp-tools", 1)[0]
		assert.Equal(t, hitl.BooleanResponse, q.ResponseType)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "no").code)
		assert.Equal(t, "no", c.result("confirm").StructuredContent["answer"])
	})
	t.Run("ask_human password: the secret reaches the agent, never the store", func(t *testing.T) {
		c.call("secret", "ask_human", map[string]any{"prompt": "The staging API key?", "input_type": "password"})
		q := awaitPending(t, m, "mcp-tools", 1)[0]
		assert.True(t, q.Sensitive)
		require.Equal(t, 0, cli(ctx, m, "s3cret-key", "answer", q.ID).code)
		assert.Equal(t, "s3cret-key", c.result("secret").StructuredContent["answer"])
		stored := question(t, m, q.ID)
		assert.NotContains(t, stored.Response.String(), "s3cret-key")
	})
	t.Run("request_approval: allowed by policy at once, denied by a rule, approved with an edit", func(t *testing.T) {
		r := c.callResult("read", "request_approval", map[string]any{"operation": "Read the logs", "op_type": "file_read", "resource": "/var/log/app.log"})
		assert.Equal(t, "approved", r.StructuredContent["decision"])
		r = c.callResult("force", "request_approval", map[string]any{"operation": "Force-push", "op_type": "shell", "resource": "git push --force origin main"})
		assert.Equal(t, "denied", r.StructuredContent["decision"])
		assert.Contains(t, r.text(), "never-force-push")
		c.call("clean", "request_approval", map[string]any{"operation": "Clean the build", "op_type": "shell", "resource": "rm -rf build", "risk": "medium"})
		q := awaitPending(t, m, "mcp-tools", 1)[0]
		assert.Equal(t, hitl.RiskMedium, q.Operation.Risk)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--edit", "rm -rf build/tmp").code)
		r = c.result("clean")
		assert.Equal(t, "approved", r.StructuredContent["decision"])
		assert.Equal(t, "rm -rf build/tmp", r.StructuredContent["edited"])
	})
	t.Run("permission_prompt: Claude Code's contract, allow with updatedInput or deny with a message", func(t *testing.T) {
		decision := func(r toolResult) map[string]any {
			t.Helper()
			require.Len(t, r.Content, 1, "one text block")
			var d map[string]any
			require.NoError(t, json.Unmarshal([]byte(r.text()), &d), r.text())
			return d
		}
		// Claude Code was about to ask its person: the approval protocol's default
		// (reads are allowed) does not allow; a person is asked.
		c.call("p-read", "permission_prompt", map[string]any{"tool_name": "Read", "input": map[string]any{"file_path": "/home/dev/.ssh/id_rsa"}, "tool_use_id": "toolu_1"})
		q := awaitPending(t, m, "mcp-tools", 1)[0]
		assert.Equal(t, "/home/dev/.ssh/id_rsa", q.Operation.Resource)
		assert.True(t, q.Operation.Prompted)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve").code)
		d := decision(c.result("p-read"))
		assert.Equal(t, map[string]any{"behavior": "allow", "updatedInput": map[string]any{"file_path": "/home/dev/.ssh/id_rsa"}}, d)
		d = decision(c.callResult("p-force", "permission_prompt", map[string]any{"tool_name": "Bash", "input": map[string]any{"command": "git push --force origin main"}}))
		assert.Equal(t, "deny", d["behavior"])
		assert.Contains(t, d["message"], "never-force-push")

		c.call("p-bash", "permission_prompt", map[string]any{"tool_name": "Bash", "input": map[string]any{"command": "rm -rf dist", "description": "Clean"}, "tool_use_id": "toolu_2"})
		q = awaitPending(t, m, "mcp-tools", 1)[0]
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--edit", "rm -rf dist/cache").code)
		d = decision(c.result("p-bash"))
		assert.Equal(t, map[string]any{"behavior": "allow", "updatedInput": map[string]any{"command": "rm -rf dist/cache", "description": "Clean"}}, d)

		c.call("p-write", "permission_prompt", map[string]any{"tool_name": "Write", "input": map[string]any{"file_path": "/srv/prod.env", "content": "X=1"}})
		q = awaitPending(t, m, "mcp-tools", 1)[0]
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "deny", "--text", "not prod").code)
		d = decision(c.result("p-write"))
		assert.Equal(t, "deny", d["behavior"])
		assert.Contains(t, d["message"], "not prod")

		// The diff of a file change is computed by hitl mcp, beside the file.
		file := filepath.Join(t.TempDir(), "a.go")
		require.NoError(t, os.WriteFile(file, []byte("package a\n\nvar x = 1\n"), 0o644))
		c.call("p-edit", "permission_prompt", map[string]any{"tool_name": "Edit", "input": map[string]any{"file_path": file, "old_string": "var x = 1", "new_string": "var x = 2"}})
		q = awaitPending(t, m, "mcp-tools", 1)[0]
		require.Len(t, q.Operation.Diffs, 1)
		assert.Equal(t, hitl.FileDiff{Path: file, Change: hitl.FileModify, Added: 1, Removed: 1,
			Unified: "--- a" + file + "\n+++ b" + file + "\n@@ -1,3 +1,3 @@\n package a\n \n-var x = 1\n+var x = 2\n"}, q.Operation.Diffs[0])
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve").code)
		assert.Equal(t, "allow", decision(c.result("p-edit"))["behavior"])

		// An edited file change is not allowed on the diff the person saw:
		// Claude is told to make the edited call, whose diff is then asked.
		c.call("p-edited", "permission_prompt", map[string]any{"tool_name": "Edit", "input": map[string]any{"file_path": file, "old_string": "var x = 1", "new_string": "var x = 2"}})
		q = awaitPending(t, m, "mcp-tools", 1)[0]
		assert.Equal(t, "var x = 2", q.Operation.Content, "the new text a person may edit")
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "approve", "--edit-content", "var x = 3").code)
		d = decision(c.result("p-edited"))
		assert.Equal(t, "deny", d["behavior"])
		assert.Contains(t, d["message"], "approved this only with an edit. Make this Edit call instead (its diff is asked again before it runs)")
		assert.Contains(t, d["message"], `"new_string":"var x = 3"`)

		c.call("p-questions", "permission_prompt", map[string]any{"tool_name": "AskUserQuestion", "input": map[string]any{"questions": []any{
			map[string]any{"question": "Which features?", "header": "Features", "multiSelect": true,
				"options": []any{map[string]any{"label": "Auth"}, map[string]any{"label": "Cache"}}},
		}}})
		q = awaitPending(t, m, "mcp-tools", 1)[0]
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "Auth,Cache").code)
		d = decision(c.result("p-questions"))
		assert.Equal(t, "allow", d["behavior"])
		assert.Equal(t, map[string]any{"Which features?": "Auth, Cache"}, d["updatedInput"].(map[string]any)["answers"])
	})
}

func TestMCPLongWaits(t *testing.T) {
	m := startMain(t, mcpPolicy)
	ctx := context.Background()

	t.Run("progress resets the client's 2s timeout: a 3s wait ends with the answer", func(t *testing.T) {
		c := nodeClient(t, m, "--run", "mcp-long", "--progress-every", "200ms")
		c.call("long", "ask_human", map[string]any{"prompt": "Ship it?", "input_type": "confirmation"},
			map[string]any{"timeout": 2000, "resetTimeoutOnProgress": true, "progress": true})
		q := awaitPending(t, m, "mcp-long", 1)[0]
		start := time.Now()
		for n := 0; time.Since(start) < 3*time.Second; n++ {
			ev := c.expect("long", "progress")
			assert.Contains(t, ev.Progress.Message, q.ID)
		}
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "yes").code)
		assert.Equal(t, "yes", c.result("long").StructuredContent["answer"])
	})
	t.Run("without the reset the client times out; the question stays pending and an identical retry waits on it", func(t *testing.T) {
		c := nodeClient(t, m, "--run", "mcp-retry", "--progress-every", "200ms")
		args := map[string]any{"prompt": "Which region?", "options": []string{"eu", "us"}}
		// 5 s: long enough that a loaded machine asks before the client gives up (the question must exist), short enough to wait out
		c.call("first", "ask_human", args, map[string]any{"timeout": 5000, "progress": true})
		q := awaitPending(t, m, "mcp-retry", 1)[0]
		var ev mcpEvent
		for ev = c.next("first"); ev.Event == "progress"; ev = c.next("first") {
		}
		require.Equal(t, "error", ev.Event)
		assert.Contains(t, ev.Message, "timed out")
		c.call("retry", "ask_human", args)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "eu").code)
		r := c.result("retry")
		assert.Equal(t, q.ID, r.StructuredContent["question_id"], "the retry waited on the same question")
		assert.Equal(t, "eu", r.StructuredContent["answer"])
		assert.Len(t, awaitAll(t, m, "mcp-retry"), 1, "one question, one Slack message")
	})
	t.Run("the client cancels: the question stays pending; get_answer picks up the answer", func(t *testing.T) {
		c := nodeClient(t, m, "--run", "mcp-abort", "--progress-every", "200ms")
		c.call("abandoned", "ask_human", map[string]any{"prompt": "Rotate the keys?"}, map[string]any{"progress": true})
		q := awaitPending(t, m, "mcp-abort", 1)[0]
		c.expect("abandoned", "progress")
		c.send(map[string]any{"id": "abandoned", "op": "abort"})
		for ev := c.next("abandoned"); ev.Event != "error"; ev = c.next("abandoned") {
		}
		assert.Equal(t, hitl.StatusPending, question(t, m, q.ID).Status)
		require.Equal(t, 0, cli(ctx, m, "", "answer", q.ID, "rotate them").code)
		r := c.callResult("later", "get_answer", map[string]any{"question_id": q.ID})
		assert.Equal(t, "answered", r.StructuredContent["status"])
		assert.Equal(t, "rotate them", r.StructuredContent["answer"])
	})
	t.Run("get_answer says pending at once; wait_seconds waits with progress for the answer", func(t *testing.T) {
		c := nodeClient(t, m, "--run", "mcp-get", "--progress-every", "200ms") // --max-wait: the default 10m
		args := map[string]any{"prompt": "Which shard?", "type": "non_blocking", "default": "a"}
		r := c.callResult("ask", "ask_human", args)
		id, _ := r.StructuredContent["question_id"].(string)
		require.NotEmpty(t, id)
		r = c.callResult("now", "get_answer", map[string]any{"question_id": id})
		assert.Equal(t, "pending", r.StructuredContent["status"], "no wait without wait_seconds")
		assert.Equal(t, id, r.StructuredContent["question_id"])
		c.call("wait", "get_answer", map[string]any{"question_id": id, "wait_seconds": 60}, map[string]any{"progress": true})
		ev := c.expect("wait", "progress")
		assert.Contains(t, ev.Progress.Message, id)
		require.Equal(t, 0, cli(ctx, m, "", "answer", id, "b").code)
		got := c.result("wait")
		assert.Equal(t, "answered", got.StructuredContent["status"])
		assert.Equal(t, "b", got.StructuredContent["answer"])
	})
	t.Run("--cancel-on-abort: the client cancels and the question is cancelled", func(t *testing.T) {
		c := nodeClient(t, m, "--run", "mcp-cancel", "--progress-every", "200ms", "--cancel-on-abort")
		c.call("abandoned", "request_approval", map[string]any{"operation": "Drop the cache", "op_type": "shell", "resource": "redis-cli flushall"}, map[string]any{"progress": true})
		q := awaitPending(t, m, "mcp-cancel", 1)[0]
		c.expect("abandoned", "progress")
		c.send(map[string]any{"id": "abandoned", "op": "abort"})
		for ev := c.next("abandoned"); ev.Event != "error"; ev = c.next("abandoned") {
		}
		got := awaitSettled(t, m, q.ID)
		assert.Equal(t, hitl.StatusCancelled, got.Status)
		assert.Contains(t, got.CancelReason, "cancelled the call")
	})
	t.Run("after --max-wait: pending with the question id; get_answer and a retry pick it up", func(t *testing.T) {
		c := nodeClient(t, m, "--run", "mcp-max", "--max-wait", "300ms")
		args := map[string]any{"operation": "Restart the database", "op_type": "shell", "resource": "systemctl restart postgresql"}
		r := c.callResult("first", "request_approval", args)
		assert.Equal(t, "pending", r.StructuredContent["decision"])
		id, _ := r.StructuredContent["question_id"].(string)
		require.NotEmpty(t, id)
		assert.Contains(t, r.text(), "get_answer")
		r = c.callResult("poll", "get_answer", map[string]any{"question_id": id})
		assert.Equal(t, "pending", r.StructuredContent["status"])
		require.Equal(t, 0, cli(ctx, m, "", "answer", id, "approve").code)
		r = c.callResult("retry", "request_approval", args)
		assert.Equal(t, "approved", r.StructuredContent["decision"])
		assert.Equal(t, id, r.StructuredContent["question_id"], "the retry found the same approval")
	})
}
