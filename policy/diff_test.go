package policy

import (
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
)

func TestDiffRules(t *testing.T) {
	a := hitl.Rule{Name: "a", OpType: hitl.OpShell, Effect: hitl.EffectAllow, Resource: "ls"}
	b := hitl.Rule{Name: "b", OpType: hitl.OpShell, Effect: hitl.EffectDeny, Resource: "rm"}
	c := hitl.Rule{Name: "c", OpType: hitl.OpFileWrite, Effect: hitl.EffectAsk}
	b2 := b
	b2.Effect = hitl.EffectAllow
	for _, tc := range []struct {
		name      string
		old, next []hitl.Rule
		want      []string // "+name" / "-name"
	}{
		{"nothing changed: no line", []hitl.Rule{a, b}, []hitl.Rule{a, b}, nil},
		{"a rule added at the end", []hitl.Rule{a}, []hitl.Rule{a, b}, []string{"+b"}},
		{"a rule removed", []hitl.Rule{a, b, c}, []hitl.Rule{a, c}, []string{"-b"}},
		{"a rule changed is removed and added", []hitl.Rule{a, b}, []hitl.Rule{a, b2}, []string{"+b", "-b"}},
		{"a rule moved first is a change of order", []hitl.Rule{a, b}, []hitl.Rule{b, a}, []string{"+b", "-b"}},
		{"the first policy: every rule added", nil, []hitl.Rule{a, b}, []string{"+a", "+b"}},
		{"every rule removed", []hitl.Rule{a, b}, nil, []string{"-a", "-b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DiffRules(tc.old, tc.next)
			var short []string
			for _, l := range got {
				name := l[strings.Index(l, `"name":"`)+8:]
				short = append(short, l[:1]+name[:strings.IndexByte(name, '"')])
			}
			if strings.Join(short, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("DiffRules = %q, want %q", got, tc.want)
			}
		})
	}
}
