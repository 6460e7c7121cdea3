package mcp

import (
	"strings"
	"unicode/utf8"
)

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + " …[cut]"
}

func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n")
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
