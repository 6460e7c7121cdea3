package policy

import (
	"strings"
	"testing"
)

func TestDiffRules(t *testing.T) {
	a := Rule{Name: "a", OpType: OpShell, Effect: EffectAllow, Resource: "ls"}
	b := Rule{Name: "b", OpType: OpShell, Effect: EffectDeny, Resource: "rm"}
	c := Rule{Name: "c", OpType: OpFileWrite, Effect: EffectAsk}
	b2 := b
	b2.Effect = EffectAllow
	for _, tc := range []struct {
		name      string
		old, next []Rule
		want      []string // "+name" / "-name"
	}{
		{"nothing changed: no line", []Rule{a, b}, []Rule{a, b}, nil},
		{"a rule added at the end", []Rule{a}, []Rule{a, b}, []string{"+b"}},
		{"a rule removed", []Rule{a, b, c}, []Rule{a, c}, []string{"-b"}},
		{"a rule changed is removed and added", []Rule{a, b}, []Rule{a, b2}, []string{"+b", "-b"}},
		{"a rule moved first is a change of order", []Rule{a, b}, []Rule{b, a}, []string{"+b", "-b"}},
		{"the first policy: every rule added", nil, []Rule{a, b}, []string{"+a", "+b"}},
		{"every rule removed", []Rule{a, b}, nil, []string{"-a", "-b"}},
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
