package shell

import (
	"strings"
	"unicode/utf8"
)

// Where mvdan.cc/sh and bash may read the same bytes differently, the
// line is opaque: the commands the parser found are still collected (so
// deny rules see them), but no part of the line is allowed by a rule.
//
// bash removes a backslash-newline before it tokenises (outside single
// quotes), so it can end a comment, join "$" to "(" or to "'", or split
// a here-document delimiter; mvdan.cc/sh does not always agree. The one
// spelling read the same (checked by the differential fuzzer,
// internal/bashdiff) is a continuation plainly between two words: an
// unquoted backslash after a blank, outside any comment, substitution,
// backquote or here-document, followed by a line that starts a word.
// Every other backslash-newline, and every NUL, carriage return or other
// control byte (tab and newline excepted) and every byte that is not
// UTF-8, makes the line opaque.

// lexOpaque says why line may be read differently by bash, or "".
func lexOpaque(line string) string {
	if !utf8.ValidString(line) {
		return "bytes that are not UTF-8, which bash and the policy's parser may read differently"
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == 0 {
			return "a NUL byte, which bash drops and the policy's parser does not"
		}
		if c == '\r' {
			return "a carriage return, which bash reads as part of a word"
		}
		if (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f {
			return "a control byte, which bash and the policy's parser may read differently"
		}
	}
	if !strings.Contains(line, "\\\n") {
		return ""
	}
	// The simple, agreed continuation needs a line without constructs
	// whose quoting nests: substitutions, backquotes, here-documents.
	if strings.Contains(line, "$(") || strings.Contains(line, "`") || strings.Contains(line, "<<") ||
		strings.Contains(line, "${") || strings.Contains(line, "<(") || strings.Contains(line, ">(") {
		return "a backslash-newline in a line with substitutions or here-documents, which bash removes before it reads them"
	}
	const (
		normal = iota
		single
		double
		dollarSingle
		comment
	)
	state := normal
	wordStart := true // the next byte in the normal state starts a word
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch state {
		case single:
			if c == '\'' {
				state = normal
			}
			continue
		case dollarSingle:
			if c == '\\' {
				if i+1 < len(line) && line[i+1] == '\n' {
					return "a backslash-newline inside $'…'"
				}
				i++
			} else if c == '\'' {
				state = normal
			}
			continue
		case double:
			if c == '\\' {
				if i+1 < len(line) && line[i+1] == '\n' {
					return "a backslash-newline inside double quotes, which bash removes before it reads what follows"
				}
				i++
			} else if c == '"' {
				state = normal
			}
			continue
		case comment:
			if c == '\\' && i+1 < len(line) && line[i+1] == '\n' {
				return "a backslash-newline at the end of a comment: bash ends the comment there, the policy's parser does not"
			}
			if c == '\n' {
				state, wordStart = normal, true
			}
			continue
		}
		switch {
		case c == '\\' && i+1 < len(line) && line[i+1] == '\n':
			if i == 0 || (line[i-1] != ' ' && line[i-1] != '\t') || (i >= 2 && line[i-2] == '\\') {
				return "a backslash-newline inside a word, which bash removes before it reads the word"
			}
			j := i + 2
			for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
				j++
			}
			if j == len(line) || line[j] == '\n' || line[j] == '#' || line[j] == '\\' {
				return "a backslash-newline that is not followed by a word"
			}
			i++ // the newline; what follows starts a word
			wordStart = true
		case c == '\\':
			i++
			wordStart = false
		case c == '\'':
			state, wordStart = single, false
		case c == '"':
			state, wordStart = double, false
		case c == '$' && i+1 < len(line) && line[i+1] == '\'':
			state, wordStart = dollarSingle, false
			i++
		case c == '#' && wordStart:
			state = comment
		case strings.IndexByte(" \t\n;&|()<>", c) >= 0:
			wordStart = true
		default:
			wordStart = false
		}
	}
	if state != normal && state != comment {
		return "an unclosed quote"
	}
	return ""
}
