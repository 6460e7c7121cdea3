package policy

import (
	"encoding/json"

	"github.com/hitlbot/hitl"
)

// DiffRules is how the rules changed from old to next, for the audit
// trail: one line per rule removed ("- " and the rule's JSON) or added
// ("+ " …), in rule order. Order matters (the first rule that matches
// wins), so a rule that moved is removed where it was and added where it
// is; rules kept in place are left out. Nothing changed: no line.
func DiffRules(old, next []hitl.Rule) []string {
	a, b := ruleLines(old), ruleLines(next)
	// The longest common subsequence, by dynamic programming: policies
	// hold tens of rules.
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, "+ "+b[j])
			j++
		default:
			out = append(out, "- "+a[i])
			i++
		}
	}
	return out
}

func ruleLines(rules []hitl.Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		b, _ := json.Marshal(r) // a struct of strings and numbers
		out[i] = string(b)
	}
	return out
}
