package main

import (
	"testing"

	"github.com/hitlbot/hitl/config"
)

// TestEveryEdgePlacesPaths: issue 31's path attacks, on real files, are
// denied or asked by every edge under a key deny, while reading the
// project stays allowed.
func TestEveryEdgePlacesPaths(t *testing.T) {
	b := newAgentBox(t)
	m := startMain(t, noLimits, func(c *config.Config, _ *Main) {
		c.Policy.Rules = []config.PolicyRule{
			{Name: "keys", OpType: "file_read", Resource: b.home + "/.ssh/*", Effect: "deny"},
			{Name: "cat", OpType: "shell", Resource: "cat", Effect: "allow"},
			{Name: "grep", OpType: "shell", Resource: "grep", Effect: "allow"},
			{Name: "project", OpType: "file_read", Resource: b.proj + "*", Effect: "allow"},
		}
	})
	key := b.home + "/.ssh/id_rsa"
	edgeRunner{m: m, b: b}.decide(t, []edgeCase{
		bashCase("cat README.md", []string{"cat", "README.md"}, "allow", "cat"),
		bashCase("cat ../.ssh/id_rsa", []string{"cat", "../.ssh/id_rsa"}, "deny", "keys"),
		bashCase("cat /proc/self/root"+key, []string{"cat", "/proc/self/root" + key}, "ask", "default"),
		bashCase("cat /proc/self/cwd/../.ssh/id_rsa", []string{"cat", "/proc/self/cwd/../.ssh/id_rsa"}, "ask", "default"),
		bashCase("grep -r '' ~/.ssh", []string{"grep", "-r", "", b.home + "/.ssh"}, "deny", "keys"),
		bashCase("grep -rn KEY ..", []string{"grep", "-rn", "KEY", ".."}, "deny", "keys"),
		bashCase("cat link-to-key", []string{"cat", "link-to-key"}, "deny", "keys"),
		bashCase("cd ~/.ssh && cat id_rsa", []string{"bash", "-c", "cd ~/.ssh && cat id_rsa"}, "deny", "keys"),
		bashCase("cat ~0/../.ssh/id_rsa", []string{"bash", "-c", "cat ~0/../.ssh/id_rsa"}, "ask", "default"), // ~0 is the directory stack: computed, never allowed
		{tool: "Grep", input: map[string]any{"pattern": "KEY", "path": b.home + "/.ssh"}, effect: "deny", rule: "keys"},
		{tool: "Grep", input: map[string]any{"pattern": "KEY", "path": b.home}, effect: "deny", rule: "keys"},
		{tool: "Glob", input: map[string]any{"pattern": "**/*", "path": b.home}, effect: "deny", rule: "keys"},
		{tool: "Grep", input: map[string]any{"pattern": "TODO", "path": b.proj}, effect: "allow", rule: "project"},
		{tool: "Read", input: map[string]any{"file_path": b.proj + "/link-to-key"}, effect: "deny", rule: "keys"},
	})
}
