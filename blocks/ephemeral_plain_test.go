package blocks_test

import (
	"testing"

	"github.com/hitlbot/hitl/blocks"
)

func TestPlainText(t *testing.T) {
	in := "Already answered by <@U0ALICE> at <!date^1795321347^{date_short_pretty} at {time}|Sun, 22 Nov 2026 04:22:27 UTC> for <!subteam^S0OPS>: *a &lt;b&gt; &amp; c*"
	want := "Already answered by @U0ALICE at Sun, 22 Nov 2026 04:22:27 UTC for @S0OPS: a <b> & c"
	if got := blocks.PlainText(in); got != want {
		t.Fatalf("PlainText = %q, want %q", got, want)
	}
}
