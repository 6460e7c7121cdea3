package mcp

import "unicode/utf8"

// cut shortens s to n runes for a progress message, saying so.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + " …[cut]"
}
