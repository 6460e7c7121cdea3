package diff

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func lines(n int, f func(i int) string) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		sb.WriteString(f(i) + "\n")
	}
	return sb.String()
}

func TestUnified(t *testing.T) {
	letters := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n"
	twenty := lines(20, func(i int) string { return fmt.Sprint(i) })
	tests := []struct {
		name, old, new, want string
		added, removed       int
	}{
		{name: "equal texts give no diff", old: "a\nb\n", new: "a\nb\n"},
		{name: "a change keeps three lines of context and numbers hunks from 1",
			old: letters, new: strings.Replace(letters, "d\n", "D\n", 1) + "n\n", added: 2, removed: 1,
			want: "--- a\n+++ b\n@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n@@ -11,3 +11,4 @@\n k\n l\n m\n+n\n"},
		{name: "a last line without newline says so",
			old: "one\ntwo", new: "one\ntwo\n", added: 1, removed: 1,
			want: "--- a\n+++ b\n@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n+two\n"},
		{name: "a new file is all added from line 0",
			old: "", new: "x\ny\n", added: 2,
			want: "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{name: "an emptied file is all removed",
			old: "x\ny\n", new: "", removed: 2,
			want: "--- a\n+++ b\n@@ -1,2 +0,0 @@\n-x\n-y\n"},
		{name: "changes further apart than six lines are separate hunks, and line numbers follow insertions",
			old:   twenty,
			new:   strings.NewReplacer("\n2\n", "\ntwo\n", "\n10\n", "\n10\nten-and-a-half\n", "\n18\n", "\neighteen\n").Replace(twenty),
			added: 3, removed: 2,
			want: "--- a\n+++ b\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -8,6 +8,7 @@\n 8\n 9\n 10\n+ten-and-a-half\n 11\n 12\n 13\n@@ -15,6 +16,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n"},
		{name: "an insertion in an empty-context spot says the line before",
			old: "a\nb\n", new: "a\nx\nb\n", added: 1,
			want: "--- a\n+++ b\n@@ -1,2 +1,3 @@\n a\n+x\n b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Unified("a", "b", tt.old, tt.new, 3)
			if r.Text != tt.want || r.Added != tt.added || r.Removed != tt.removed {
				t.Errorf("got +%d -%d\n%s\nwant +%d -%d\n%s", r.Added, r.Removed, r.Text, tt.added, tt.removed, tt.want)
			}
			if tt.want != "" {
				if gnu := gnuDiff(t, tt.old, tt.new); gnu != "" && gnu != tt.want {
					t.Errorf("GNU diff -u says\n%s", gnu)
				}
			}
		})
	}
}

// gnuDiff is GNU diff -u's diff of old against new, labelled a and b; ""
// when diff is not installed.
func gnuDiff(t *testing.T, old, new string) string {
	t.Helper()
	if _, err := exec.LookPath("diff"); err != nil {
		t.Log("GNU diff is not installed: not compared")
		return ""
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(new), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("diff", "-u", "--label", "a", "--label", "b", a, b).Output()
	if err != nil && len(out) == 0 {
		t.Fatalf("diff: %v", err)
	}
	return string(out)
}

// apply applies a unified diff to old, checking every context and removed
// line against it.
func apply(old, diff string) (string, error) {
	hs, err := Parse(diff)
	if err != nil {
		return "", err
	}
	a := split(old)
	var out []string
	i := 0
	for _, h := range hs {
		start := h.OldStart - 1
		if h.OldLines == 0 {
			start = h.OldStart
		}
		if start < i {
			return "", fmt.Errorf("hunk %s overlaps", h.Header())
		}
		out = append(out, a[i:start]...)
		i = start
		nOld, nNew := 0, 0
		for _, l := range h.Lines {
			text := l.Text + "\n"
			if l.NoNewline {
				text = l.Text
			}
			switch l.Kind {
			case Context, Removed:
				if i >= len(a) || a[i] != text {
					return "", fmt.Errorf("hunk %s: line %d is not %q", h.Header(), i+1, text)
				}
				if l.Old != i+1 {
					return "", fmt.Errorf("hunk %s: line numbered %d is line %d", h.Header(), l.Old, i+1)
				}
				i++
				nOld++
				if l.Kind == Context {
					out = append(out, text)
					nNew++
				}
			case Added:
				out = append(out, text)
				nNew++
			}
		}
		if nOld != h.OldLines || nNew != h.NewLines {
			return "", fmt.Errorf("hunk %s has %d old and %d new lines", h.Header(), nOld, nNew)
		}
	}
	return strings.Join(append(out, a[i:]...), ""), nil
}

// lcs is the length of a longest common subsequence of lines.
func lcs(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// check fails when the diff of old against new does not turn old into new
// or is not a shortest one.
func check(t *testing.T, old, new string) {
	t.Helper()
	r := Unified("a", "b", old, new, 3)
	got, err := apply(old, r.Text)
	if err != nil || got != new {
		t.Fatalf("diff of %q against %q does not apply (%v): got %q\n%s", old, new, err, got, r.Text)
	}
	a, b := split(old), split(new)
	if short := len(a) + len(b) - 2*lcs(a, b); r.Added+r.Removed != short {
		t.Fatalf("diff of %q against %q has %d changed lines, the shortest has %d\n%s", old, new, r.Added+r.Removed, short, r.Text)
	}
	hs, _ := Parse(r.Text)
	added, removed := 0, 0
	for _, h := range hs {
		for _, l := range h.Lines {
			added += btoi(l.Kind == Added)
			removed += btoi(l.Kind == Removed)
		}
	}
	if r.Added != added || r.Removed != removed {
		t.Fatalf("counts +%d -%d, the diff has +%d -%d\n%s", r.Added, r.Removed, added, removed, r.Text)
	}
	// What Unified writes, Check accepts with its counts; and cut
	// anywhere at a line end, still (the last hunk short).
	if st, err := Check(r.Text, false); err != nil || st.Added != r.Added || st.Removed != r.Removed || (r.Text != "" && (st.Old != "a" || st.New != "b")) {
		t.Fatalf("Check = %+v, %v; want +%d -%d\n%s", st, err, r.Added, r.Removed, r.Text)
	}
	for i := range strings.Count(r.Text, "\n") {
		cut, _ := Cap(r.Text, strings.Index(r.Text, "\n")+1+i)
		if _, err := Check(cut, true); err != nil {
			t.Fatalf("Check of the diff cut to %d bytes: %v\n%s", len(cut), err, cut)
		}
	}
}

func randomText(r *rand.Rand, n int) string {
	var sb strings.Builder
	for range n {
		sb.WriteString(string(rune('a' + r.IntN(4))))
		if r.IntN(20) > 0 {
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

func TestUnifiedRandomTextsApplyAndAreShortest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		check(t, randomText(r, r.IntN(30)), randomText(r, r.IntN(30)))
	}
}

func TestUnifiedGNUPatchAppliesIt(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("GNU patch is not installed")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 20 {
		old := lines(40, func(int) string { return fmt.Sprint(r.IntN(6)) })
		new := lines(40, func(int) string { return fmt.Sprint(r.IntN(6)) })
		d := Unified("a", "b", old, new, 3)
		dir := t.TempDir()
		f := filepath.Join(dir, "f")
		if err := os.WriteFile(f, []byte(old), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("patch", "--quiet", "--force", f)
		cmd.Stdin = strings.NewReader(d.Text)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("case %d: patch: %v\n%s\n%s", i, err, out, d.Text)
		}
		if b, _ := os.ReadFile(f); string(b) != new {
			t.Fatalf("case %d: patch made %q, want %q", i, b, new)
		}
	}
}

func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd")
	f.Add("", "x\n")
	f.Add("x\ny", "")
	f.Fuzz(func(t *testing.T, old, new string) {
		if len(old) > 2000 || len(new) > 2000 {
			return
		}
		check(t, old, new)
	})
}

func TestUnifiedLargeTextsStayFast(t *testing.T) {
	// 20,000 lines each, every line different: beyond maxCost the region
	// is shown removed then added, still a correct diff.
	old := lines(20000, func(i int) string { return fmt.Sprint("old ", i) })
	new := lines(20000, func(i int) string { return fmt.Sprint("new ", i) })
	r := Unified("a", "b", old, new, 3)
	if r.Added != 20000 || r.Removed != 20000 {
		t.Fatalf("got +%d -%d", r.Added, r.Removed)
	}
	if got, err := apply(old, r.Text); err != nil || got != new {
		t.Fatalf("does not apply: %v", err)
	}
	// Every tenth line changed: shortest, in one pass.
	new = lines(20000, func(i int) string {
		if i%10 == 0 {
			return fmt.Sprint("changed ", i)
		}
		return fmt.Sprint("old ", i)
	})
	r = Unified("a", "b", old, new, 3)
	if r.Added != 2000 || r.Removed != 2000 {
		t.Fatalf("got +%d -%d", r.Added, r.Removed)
	}
}

func TestCap(t *testing.T) {
	text := "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n"
	tests := []struct {
		name string
		max  int
		want string
		cut  bool
	}{
		{"a diff within the cap is whole", len(text), text, false},
		{"a diff over the cap is cut at a line end", len(text) - 1, "--- a\n+++ b\n@@ -1 +1 @@\n-x\n", true},
		{"a cap inside the first line leaves nothing", 3, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := Cap(text, tt.max)
			if got != tt.want || cut != tt.cut {
				t.Errorf("Cap(%d) = %q, %v; want %q, %v", tt.max, got, cut, tt.want, tt.cut)
			}
		})
	}
}

func TestParseRefusesWhatIsNotADiff(t *testing.T) {
	for _, bad := range []string{"hello\n", "@@ -x +1 @@\n", "@@ -1 +1 @@\n*x\n"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = nil error", bad)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkUnified: a 20,000-line file with every tenth line changed, and
// one rewritten whole (beyond maxCost).
func BenchmarkUnified(b *testing.B) {
	old := lines(20000, func(i int) string { return fmt.Sprint("old ", i) })
	tenth := lines(20000, func(i int) string {
		if i%10 == 0 {
			return fmt.Sprint("changed ", i)
		}
		return fmt.Sprint("old ", i)
	})
	whole := lines(20000, func(i int) string { return fmt.Sprint("new ", i) })
	for name, new := range map[string]string{"every_tenth_line": tenth, "rewritten": whole} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				Unified("a", "b", old, new, 3)
			}
		})
	}
}

func TestUnifiedLargeRandomTextsApply(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 5 {
		// Lines repeated and unique, so that anchors and Myers both work.
		gen := func() string {
			return lines(1500+r.IntN(1500), func(int) string {
				if r.IntN(3) == 0 {
					return fmt.Sprint("unique ", r.IntN(1<<30))
				}
				return fmt.Sprint("common ", r.IntN(20))
			})
		}
		old, new := gen(), gen()
		d := Unified("a", "b", old, new, 3)
		if got, err := apply(old, d.Text); err != nil || got != new {
			t.Fatalf("the diff does not apply: %v", err)
		}
	}
}
