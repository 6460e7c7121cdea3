package auth

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPersonName: the one local person has one name wherever hitl shows
// who did something; everyone else is shown by their id.
func TestPersonName(t *testing.T) {
	for id, want := range map[string]string{
		"local":         "local",
		"local:root":    "local",
		"local:alice":   "local",
		"localhost":     "localhost", // not a local principal
		"api:ci-agent":  "api:ci-agent",
		"slack:U0ALICE": "slack:U0ALICE",
		"system":        "system",
		"":              "",
	} {
		assert.Equal(t, want, PersonName(id), id)
	}
}
