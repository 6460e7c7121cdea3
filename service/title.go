package service

import (
	"strings"
	"unicode/utf8"

	"github.com/hitlbot/hitl/steer"
)

// title is a prompt as a run's title: its first line, cut.
func title(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	line = strings.TrimSpace(line)
	if utf8.RuneCountInString(line) > steer.MaxTitleLen {
		line = string([]rune(line)[:steer.MaxTitleLen-1]) + "…"
	}
	return line
}
