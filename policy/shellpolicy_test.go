package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/policy"
	"github.com/hitlbot/hitl/shell"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func decideLine(t *testing.T, rules []hitl.Rule, home, line string) hitl.Decision {
	t.Helper()
	d, err := policy.Decider{Rules: rules, Parse: shell.Parse}.Decide(hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: line, Agent: "api:ci", Home: home})
	require.NoError(t, err)
	return d
}

// TestPathsAreNormalised: redirection targets, write options and file
// operations are cleaned (.., //, .), ~ is the agent's home, a home the
// policy does not know is never allowed yet meets home-directory denies,
// and /dev/tcp is the network.
func TestPathsAreNormalised(t *testing.T) {
	rules := []hitl.Rule{
		{Name: "ls", OpType: hitl.OpShell, Resource: "ls", Effect: allow},
		{Name: "git", OpType: hitl.OpShell, Resource: "git status", Effect: allow},
		{Name: "echo", OpType: hitl.OpShell, Resource: "echo", Effect: allow},
		{Name: "sort", OpType: hitl.OpShell, Resource: "sort", Effect: allow},
		{Name: "keys", OpType: hitl.OpFileRead, Resource: "/home/*/.ssh/*", Effect: deny},
		{Name: "etc", OpType: hitl.OpFileWrite, Resource: "/etc/*", Effect: deny},
		{Name: "root", OpType: hitl.OpFileWrite, Resource: "/root/*", Effect: deny},
		{Name: "tmp", OpType: hitl.OpFileWrite, Resource: "/tmp/*", Effect: allow},
		{Name: "my-home", OpType: hitl.OpFileWrite, Resource: "/home/u/work/*", Effect: allow},
	}
	for _, tc := range []struct {
		home, line string
		want       hitl.Effect
	}{
		{"", "git status > /tmp/out.txt", allow},
		{"", "git status > /tmp/./out.txt", allow},
		{"", "git status > /tmp/../root/.bashrc", deny},
		{"", "git status > /tmp/../home/u/.bashrc", ask},
		{"", "git status > /tmp//../etc/passwd", deny},
		{"", "sort -o /tmp/../etc/passwd f", deny},
		{"", "echo x | tee /tmp/../etc/hosts", deny},
		{"", "ls < ~/.ssh/id_rsa", deny},
		{"/home/u", "ls < ~/.ssh/id_rsa", deny},
		{"", "ls < //home/u/.ssh/id_rsa", deny},
		{"", "ls < /etc/../home/u/.ssh/id_rsa", deny},
		{"", "ls < /home/u/./.ssh/id_rsa", deny},
		{"", "ls < ~u/.ssh/id_rsa", deny},
		{"", "echo x > ~root/.bashrc", deny},
		{"/home/u", "echo x > ~/work/out", allow},
		{"", "echo x > ~/work/out", deny}, // the home could be /root
		{"/home/u", "echo x > ~/work/../.bashrc", ask},
		{"/home/u", "echo x > '~/work/out'", ask},
		{"", "echo x > /dev/tcp/127.0.0.1/80", ask},
		{"", "echo x > /dev//tcp/127.0.0.1/80", ask},
		{"", "ls < /dev/udp/127.0.0.1/53", ask},
		{"", "echo x > /dev/null", allow},
	} {
		t.Run(tc.home+" "+tc.line, func(t *testing.T) {
			d := decideLine(t, rules, tc.home, tc.line)
			assert.Equal(t, tc.want, d.Effect, "%+v", d.Parts)
		})
	}
	t.Run("resolved symlinks only ever add friction", func(t *testing.T) {
		d := policy.Decider{Rules: rules, Parse: shell.Parse}
		for _, tc := range []struct {
			line  string
			paths map[string]string
			want  hitl.Effect
		}{
			{"echo x > /tmp/rc", map[string]string{"/tmp/rc": "/etc/profile"}, deny},
			{"echo x > /tmp/rc", map[string]string{"/tmp/rc": "/var/x"}, ask},
			{"echo x > /tmp/rc", map[string]string{"/tmp/rc": "/tmp/other"}, allow},
			{"echo x > /etc/passwd", map[string]string{"/etc/passwd": "/tmp/x"}, deny},
			{"echo x > /tmp/rc", map[string]string{"/tmp/rc": "/dev/tcp/127.0.0.1/80"}, ask},
			{"echo x > /etc/x", map[string]string{"/etc/x": "/dev/tcp/127.0.0.1/80"}, deny},
		} {
			got, err := d.Decide(hitl.Operation{Type: hitl.OpShell, Description: "x", Resource: tc.line, Agent: "api:ci", Paths: tc.paths})
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Effect, "%s %v: %+v", tc.line, tc.paths, got.Parts)
		}
	})
	t.Run("file operations", func(t *testing.T) {
		d := policy.Decider{Rules: rules}
		for _, tc := range []struct {
			op   hitl.Operation
			want hitl.Effect
		}{
			{hitl.Operation{Type: hitl.OpFileRead, Resource: "/etc/../home/u/.ssh/id_rsa"}, deny},
			{hitl.Operation{Type: hitl.OpFileRead, Resource: "//home/u/.ssh/id_rsa"}, deny},
			{hitl.Operation{Type: hitl.OpFileRead, Resource: "~/.ssh/id_rsa"}, deny},
			{hitl.Operation{Type: hitl.OpFileWrite, Resource: "/tmp/../etc/passwd"}, deny},
			{hitl.Operation{Type: hitl.OpFileWrite, Resource: "/tmp/../var/x"}, ask},
			{hitl.Operation{Type: hitl.OpFileWrite, Resource: "/tmp/x"}, allow},
			{hitl.Operation{Type: hitl.OpFileWrite, Resource: "~/work/x", Home: "/home/u"}, allow},
			{hitl.Operation{Type: hitl.OpFileWrite, Resource: "~/work/x"}, deny}, // the home could be /root
			{hitl.Operation{Type: hitl.OpFileWrite, Resource: "~/x", Home: "/home/u"}, ask},
		} {
			tc.op.Description, tc.op.Agent = "x", "api:ci"
			got, err := d.Decide(tc.op)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Effect, "%+v", tc.op)
			if tc.op.Resource[0] == '~' && tc.op.Home == "" {
				assert.False(t, got.Learnable, "a path under an unknown home is never learned")
			}
		}
	})
}

// frictionRules: a deny, a two-person rule and an approvers rule, under
// an allow-everything rule that must not weaken them.
var frictionRules = []hitl.Rule{
	{Name: "no-rm-rf", OpType: hitl.OpShell, Resource: "rm -rf", Effect: deny},
	{Name: "two-person-apply", OpType: hitl.OpShell, Resource: "terraform apply", Effect: ask, Quorum: 2, Approvers: []string{"S0OPS"}},
	{Name: "pushes", OpType: hitl.OpShell, Resource: "git push", Effect: ask, Approvers: []string{"U0LEAD"}},
	{Name: "no-curl", OpType: hitl.OpShell, Resource: "curl *", Effect: deny},
	{Name: "everything-else", OpType: hitl.OpShell, Resource: "*", Effect: allow},
}

// TestFrictionMatchesGenerously: every spelling of a command meets the
// rules that deny or add people; allows match strictly.
func TestFrictionMatchesGenerously(t *testing.T) {
	for _, tc := range []struct {
		line string
		rule string
	}{
		{"rm -rf build", "no-rm-rf"},
		{"/bin/rm -rf build", "no-rm-rf"},
		{"rm -fr build", "no-rm-rf"},
		{"rm -r -f build", "no-rm-rf"},
		{"rm -f -r build", "no-rm-rf"},
		{"rm --recursive --force build", "no-rm-rf"},
		{"rm -R -f build", "no-rm-rf"},
		{"rm -rfv build", "no-rm-rf"},
		{"rm build -rf", "no-rm-rf"},
		{"rm    -rf     build", "no-rm-rf"},
		{"FOO=1 rm -rf build", "no-rm-rf"},
		{"env rm -rf build", "no-rm-rf"},
		{"sudo -u root rm -rf build", "no-rm-rf"},
		{"nice -n 5 rm -rf build", "no-rm-rf"},
		{"timeout 5 rm -rf build", "no-rm-rf"},
		{"command rm -rf build", "no-rm-rf"},
		{"xargs rm -rf < list", "no-rm-rf"},
		{"find . -exec rm -rf {} ;", "no-rm-rf"},
		{"sh -c 'rm -rf build'", "no-rm-rf"},
		{"ls; rm -rf build", "no-rm-rf"},
		{"rm -rf build 'unterminated", "no-rm-rf"},
		{"terraform apply", "two-person-apply"},
		{"/usr/bin/terraform apply", "two-person-apply"},
		{"terraform -chdir=. apply", "two-person-apply"},
		{"terraform -chdir . apply", "two-person-apply"},
		{"TF_IN_AUTOMATION=1 terraform apply", "two-person-apply"},
		{"terraform apply -auto-approve", "two-person-apply"},
		{"env TF_LOG=1 terraform apply", "two-person-apply"},
		{"git push", "pushes"},
		{"git -C repo push origin main", "pushes"},
		{"git -c x=y push", "pushes"},
		{"/usr/bin/git push -f", "pushes"},
		{"curl https://x.example", "no-curl"},
		{"/usr/bin/curl -s https://x.example", "no-curl"},
		// an option the table does not model makes the part opaque, and
		// friction still reaches it
		{"rm -rf --frob build", "no-rm-rf"},
		{"rm --frob -r -f build", "no-rm-rf"},
		{"git push --frob origin", "pushes"},
		{"git --frob push", "pushes"},
		{"curl --frob https://x.example", "no-curl"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			d := decideLine(t, frictionRules, "", tc.line)
			assert.Equal(t, tc.rule, d.Rule, "%+v", d.Parts)
			assert.NotEqual(t, allow, d.Effect)
			assert.False(t, d.Learnable, "a line a friction rule matches is never learnable")
			if tc.rule == "two-person-apply" {
				assert.Equal(t, 2, d.Quorum)
			}
		})
	}
	t.Run("a long chain of wrappers", func(t *testing.T) {
		d := decideLine(t, frictionRules, "", strings.Repeat("nice ", 300)+"terraform apply")
		assert.Equal(t, "two-person-apply", d.Rule)
		assert.Equal(t, 2, d.Quorum)
	})
	for _, line := range []string{"rm -r build", "rm build", "git status", "terraform plan", "ls -rf"} {
		d := decideLine(t, frictionRules, "", line)
		assert.Equal(t, allow, d.Effect, "%s: friction does not reach other commands: %+v", line, d.Parts)
	}
	// an allow rule matches strictly: another spelling is not allowed
	strict := []hitl.Rule{{Name: "status", OpType: hitl.OpShell, Resource: "git status", Effect: allow}}
	for _, line := range []string{"/usr/bin/git status", "git -C x status", "GIT_DIR=x git status", "git  status", "git 'status'"} {
		d := decideLine(t, strict, "", line)
		want := ask
		if line == "git  status" || line == "git 'status'" {
			want = allow // whitespace and quotes fold into the canonical spelling
		}
		assert.Equal(t, want, d.Effect, line)
	}
}

// TestLearnableOnlyWhenFullyUnderstood: "always" is offered only for one
// fully understood command with safe arguments that no friction rule
// matches generously.
func TestLearnableOnlyWhenFullyUnderstood(t *testing.T) {
	rules := []hitl.Rule{
		{Name: "no-rm-rf", OpType: hitl.OpShell, Resource: "rm -rf", Effect: deny},
		{Name: "two-person-apply", OpType: hitl.OpShell, Resource: "terraform apply", Effect: ask, Quorum: 2, Approvers: []string{"S0OPS"}},
	}
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"make deploy-q", true},
		{"make test", true},
		{"env make test", true},
		{"terraform plan", true},
		{"make deploy-q; let 'a[$(touch P)]=1'", false},
		{"make deploy-q; (( a[$(touch P)] ))", false},
		{"make deploy-q && [[ -v x ]]", false},
		{"make deploy-q ${x@P}", false},
		{"make deploy-q $x", false},
		{"/usr/bin/terraform apply", false},
		{"terraform -chdir=. apply", false},
		{"TF_IN_AUTOMATION=1 terraform apply", false},
		{"rm -r -f build", false},
		{"sed -n '1e id' f", false},
		{"sort -o out f", false},
		{"git log --output=x", false},
		{"A=1 make test", false},
		{"make test > /tmp/log", false},
		{"make test < in", false},
		{"f() { make test; }", false},
		{"printf -v x y", false},
		{"make deploy-q SHELL=/bin/x", false},
		{"make test --frob", false},
		{"make --eval-frob test", false},
		{"env make -j4 test", true},
	} {
		t.Run(tc.line, func(t *testing.T) {
			d := decideLine(t, rules, "", tc.line)
			assert.Equal(t, tc.want, d.Learnable, "%+v", d)
		})
	}
}

// TestOpaqueIsShownAsNotUnderstood: a person sees what the policy did not
// understand.
func TestOpaqueIsShownAsNotUnderstood(t *testing.T) {
	d := decideLine(t, []hitl.Rule{{Name: "make", OpType: hitl.OpShell, Resource: "make", Effect: allow}}, "", "make deploy-q; let 'a[$(touch P)]=1'")
	assert.Equal(t, ask, d.Effect)
	found := false
	for _, p := range d.Parts {
		if p.Kind == hitl.PartOpaque {
			found = true
			assert.Contains(t, p.Reason, "not understood")
		}
	}
	assert.True(t, found, "%+v", d.Parts)
	assert.Contains(t, d.Explain(), "not understood")
}

// TestUnknownOptionIsShownToThePerson: an option the argument table does
// not model asks, under a rule that allows the command, and says which.
func TestUnknownOptionIsShownToThePerson(t *testing.T) {
	rules := []hitl.Rule{
		{Name: "ls", OpType: hitl.OpShell, Resource: "ls", Effect: allow},
		{Name: "git-log", OpType: hitl.OpShell, Resource: "git log", Effect: allow},
	}
	for line, reason := range map[string]string{
		"ls --some-new-flag":          "ls: option --some-new-flag is not one the policy knows; ask",
		"git log --frobnicate=x":      "git log: option --frobnicate=x is not one the policy knows; ask",
		"ls -la && git log -Y --stat": "git log: option -Y is not one the policy knows; ask",
	} {
		d := decideLine(t, rules, "", line)
		assert.Equal(t, ask, d.Effect, "%s: %+v", line, d.Parts)
		assert.False(t, d.Learnable, line)
		assert.Contains(t, d.Explain(), reason, line)
		assert.Contains(t, d.Explain(), "not understood", line)
	}
	for _, line := range []string{"ls -la", "git log --oneline -n 20", "ls -la && git log --stat -3"} {
		assert.Equal(t, allow, decideLine(t, rules, "", line).Effect, line)
	}
}

// TestHomeAndPathsAreValidated: what an edge sends about the agent's
// machine is checked like the rest of the operation.
func TestHomeAndPathsAreValidated(t *testing.T) {
	many := map[string]string{}
	for i := 0; i < 65; i++ {
		many[fmt.Sprintf("/tmp/%d", i)] = "/x"
	}
	for _, tc := range []struct {
		op      hitl.Operation
		wantErr string
	}{
		{hitl.Operation{Home: "/home/u"}, ""},
		{hitl.Operation{Home: "home/u"}, "home"},
		{hitl.Operation{Home: "/home/u\n"}, "home"},
		{hitl.Operation{Paths: map[string]string{"/tmp/rc": "/home/u/.bashrc"}}, ""},
		{hitl.Operation{Paths: map[string]string{"/tmp/rc": "relative"}}, "paths"},
		{hitl.Operation{Paths: map[string]string{"": "/x"}}, "paths"},
		{hitl.Operation{Paths: many}, "paths"},
	} {
		tc.op.Type, tc.op.Description = hitl.OpShell, "x"
		err := policy.ValidateOperation(&tc.op)
		if tc.wantErr == "" {
			assert.NoError(t, err)
			continue
		}
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.wantErr)
		assert.Equal(t, fault.EINVALID, fault.Code(err))
	}
}
