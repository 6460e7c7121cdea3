package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// TestSlackAppManifest checks that the shipped manifest asks for what the bot
// uses: Socket Mode, interactivity, /hitl, App Home, the message events and
// the scopes behind every Web API method the bot calls.
func TestSlackAppManifest(t *testing.T) {
	raw, err := os.ReadFile("../../slack-app-manifest.yaml")
	require.NoError(t, err)
	var m struct {
		Features struct {
			AppHome struct {
				HomeTab bool `yaml:"home_tab_enabled"`
			} `yaml:"app_home"`
			SlashCommands []struct {
				Command string `yaml:"command"`
			} `yaml:"slash_commands"`
		} `yaml:"features"`
		OAuth struct {
			Scopes struct {
				Bot []string `yaml:"bot"`
			} `yaml:"scopes"`
		} `yaml:"oauth_config"`
		Settings struct {
			Events struct {
				Bot []string `yaml:"bot_events"`
			} `yaml:"event_subscriptions"`
			Interactivity struct {
				Enabled bool `yaml:"is_enabled"`
			} `yaml:"interactivity"`
			SocketMode bool `yaml:"socket_mode_enabled"`
		} `yaml:"settings"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &m))
	assert.True(t, m.Settings.SocketMode)
	assert.True(t, m.Settings.Interactivity.Enabled)
	assert.True(t, m.Features.AppHome.HomeTab)
	require.Len(t, m.Features.SlashCommands, 1)
	assert.Equal(t, "/hitl", m.Features.SlashCommands[0].Command)
	assert.ElementsMatch(t, []string{"app_home_opened", "message.channels", "message.groups", "message.im"}, m.Settings.Events.Bot)
	for _, scope := range []string{"chat:write", "commands", "im:write", "channels:history", "groups:history", "im:history", "reactions:write", "usergroups:read", "users:read", "users:read.email"} {
		assert.Contains(t, m.OAuth.Scopes.Bot, scope)
	}
}
