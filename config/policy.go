package config

import (
	"fmt"

	"github.com/hitlbot/hitl"
	"go.yaml.in/yaml/v3"
)

// PolicyConfig is the approval policy (docs/policies.md) in YAML (snake_case; the API
// uses the same fields in camelCase).
type PolicyConfig struct {
	Rules []PolicyRule `yaml:"rules"`
	// LearnedTTL is how long a rule taught with "approve and always
	// allow" holds (default 720h: 30 days).
	LearnedTTL Duration `yaml:"learned_ttl"`
	// Enforce is how an allowed or approved shell line is held to its
	// grant where hitl sees it run: "kernel" (under hitl sandbox, in a
	// Landlock domain: hitl gate, and the hooks' rewritten Bash call) or
	// "" (the decision alone; docs/security.md).
	Enforce string `yaml:"enforce"`
}

// PolicyRule is one rule as written in the config file.
type PolicyRule struct {
	Name      string   `yaml:"name"`
	OpType    string   `yaml:"op_type"`
	Risk      Risks    `yaml:"risk"`
	Resource  string   `yaml:"resource"`
	Agent     string   `yaml:"agent"`
	Effect    string   `yaml:"effect"`
	Approvers []string `yaml:"approvers"`
	Quorum    int      `yaml:"quorum"`
	// Reminders and escalation of the questions the rule asks: each key
	// set wins over the question type's (`reminders:` at the top).
	Reminders         []Duration `yaml:"reminders"`
	EscalateAfter     Duration   `yaml:"escalate_after"`
	EscalateTo        []string   `yaml:"escalate_to"`
	EscalationChannel string     `yaml:"escalation_channel"`
}

// Risks is one risk level or a list of them.
type Risks []string

// UnmarshalYAML accepts `risk: high` and `risk: [high, critical]`.
func (r *Risks) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*r = Risks{n.Value}
		return nil
	case yaml.SequenceNode:
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		*r = list
		return nil
	}
	return fmt.Errorf("line %d: risk is a level (low, medium, high, critical) or a list of levels", n.Line)
}

// PolicyRules converts the configured rules to the domain's.
func (c Config) PolicyRules() []hitl.Rule {
	out := make([]hitl.Rule, 0, len(c.Policy.Rules))
	for _, r := range c.Policy.Rules {
		pr := hitl.Rule{Name: r.Name, OpType: hitl.OpType(r.OpType), Resource: r.Resource, Agent: r.Agent,
			Effect: hitl.Effect(r.Effect), Approvers: r.Approvers, Quorum: r.Quorum,
			ReminderPolicy: reminderPolicy(r.Reminders, r.EscalateAfter, r.EscalateTo, r.EscalationChannel)}
		for _, k := range r.Risk {
			pr.Risk = append(pr.Risk, hitl.Risk(k))
		}
		out = append(out, pr)
	}
	return out
}
