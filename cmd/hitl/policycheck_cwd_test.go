package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPolicyCheckSendsItsWorkingDirectory: hitl policy check places a
// relative path in its own directory unless --cwd says another, as
// hitl gate does; a decision without any working directory would ask
// (policy/unplaced.go), never allow.
func TestPolicyCheckSendsItsWorkingDirectory(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	secret := filepath.Join(wd, "hitl-secret-name")
	m := startMain(t, func(c *config.Config, _ *Main) {
		c.Policy.Rules = []config.PolicyRule{
			{Name: "cat", OpType: "shell", Resource: "cat", Effect: "allow"},
			{Name: "secret", OpType: "file_read", Resource: secret, Effect: "deny"},
		}
	})
	ctx := context.Background()
	for _, tc := range []struct {
		args   []string
		effect hitl.Effect
		rule   string
	}{
		{nil, hitl.EffectDeny, "secret"}, // placed here: the denied file
		{[]string{"--cwd", wd}, hitl.EffectDeny, "secret"},
		{[]string{"--cwd", "/"}, hitl.EffectAllow, "cat"}, // /hitl-secret-name is another file
	} {
		args := append([]string{"policy", "check", "--op-type", "shell", "--resource", "cat hitl-secret-name", "--json"}, tc.args...)
		res := cli(ctx, m, "", args...)
		require.Equal(t, 0, res.code, res.stderr)
		var d hitl.Decision
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &d))
		assert.Equal(t, tc.effect, d.Effect, "%v: %+v", tc.args, d.Parts)
		assert.Equal(t, tc.rule, d.Rule, "%v", tc.args)
	}
}
