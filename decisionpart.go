package hitl

// DecisionPart is one part of a command line and how it decided.
type DecisionPart struct {
	// Kind is command, write (a file a redirection or tee writes), read
	// (a file a redirection reads) or opaque (what hands a string to a
	// shell or interpreter, or does not parse).
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	Effect Effect `json:"decision"`
	Rule   string `json:"rule"`
	// Reason says why, in words a person reads.
	Reason string `json:"reason,omitempty"`
	// Risks are what the part does that a person should weigh, riskiest
	// first (policy.Decider.Risks).
	Risks []RiskLabel `json:"risks,omitempty"`
}

// Verb is how a part's text is introduced to a person: "writes " for a
// file written, "reads " for a file read, nothing for a command.
func (p DecisionPart) Verb() string {
	switch p.Kind {
	case PartWrite:
		return "writes "
	case PartRead:
		return "reads "
	}
	return ""
}

// PartsTellMore reports whether showing parts tells a person more than
// the operation's resource does: a line of several parts, or one the
// policy could not see through.
func PartsTellMore(parts []DecisionPart) bool {
	return len(parts) > 1 || (len(parts) == 1 && parts[0].Kind != PartCommand)
}

// Part kinds.
const (
	PartCommand = "command"
	PartWrite   = "write"
	PartRead    = "read"
	PartOpaque  = "opaque"
)
