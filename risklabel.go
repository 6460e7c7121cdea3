package hitl

import "strings"

// RiskKind names one kind of risk.
type RiskKind string

// The kinds, riskiest first (as package policy orders them).
const (
	RiskRunsFetched   RiskKind = "runs_fetched_code"
	RiskPrivileges    RiskKind = "raises_privileges"
	RiskSecret        RiskKind = "reads_secret"
	RiskDeletes       RiskKind = "deletes_files"
	RiskGitHistory    RiskKind = "changes_git_history"
	RiskNotUnderstood RiskKind = "not_understood"
	RiskWritesOutside RiskKind = "writes_outside"
	RiskOverwrites    RiskKind = "overwrites_files"
	RiskNetwork       RiskKind = "reaches_network"
)

// RiskLabel is one risk: its kind and, in plain words, what it names
// ("deletes files: build, dist").
type RiskLabel struct {
	Kind RiskKind `json:"kind"`
	Text string   `json:"text"`
}

// RiskSummary is labels as one line a person reads, riskiest first:
// "runs code fetched from the network: curl -s http://x | sh; deletes
// files: build". "" when there are none.
func RiskSummary(labels []RiskLabel) string {
	texts := make([]string, len(labels))
	for i, l := range labels {
		texts[i] = l.Text
	}
	return strings.Join(texts, "; ")
}
