package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// usageCommand is a command's line in the usage text: "  hitl NAME ...".
var usageCommand = regexp.MustCompile(`(?m)^  hitl ([a-z]+) `)

// readmeCommand is a command's row in docs/cli.md's Commands table.
var readmeCommand = regexp.MustCompile("(?m)^\\| `hitl ([a-z]+)[ `]")

func TestCommandLists(t *testing.T) {
	var table []string
	for name := range commands {
		table = append(table, name)
	}
	slices.Sort(table)
	names := func(re *regexp.Regexp, text string) []string {
		var out []string
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			out = append(out, m[1])
		}
		slices.Sort(out)
		return slices.Compact(out)
	}

	t.Run("the usage text lists every command and no other", func(t *testing.T) {
		assert.Equal(t, table, names(usageCommand, usage))
	})
	t.Run("docs/cli.md's Commands table lists every command and no other", func(t *testing.T) {
		b, err := os.ReadFile("../../docs/cli.md")
		require.NoError(t, err)
		_, section, ok := strings.Cut(string(b), "\n## Commands\n")
		require.True(t, ok, "docs/cli.md has a Commands section")
		section, _, _ = strings.Cut(section, "\n## ")
		assert.Equal(t, table, names(readmeCommand, section))
	})
}
