package hitl

import (
	"strings"
	"unicode/utf8"
)

// title is a prompt as a run's title: its first line, cut.
func title(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	line = strings.TrimSpace(line)
	if utf8.RuneCountInString(line) > MaxTitleLen {
		line = string([]rune(line)[:MaxTitleLen-1]) + "…"
	}
	return line
}
