package service

import (
	"strings"
	"unicode/utf8"

	"github.com/hitlbot/hitl"
)

// title is a prompt as a run's title: its first line, cut.
func title(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	line = strings.TrimSpace(line)
	if utf8.RuneCountInString(line) > hitl.MaxTitleLen {
		line = string([]rune(line)[:hitl.MaxTitleLen-1]) + "…"
	}
	return line
}
