package blocks

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pendingApprovals returns n pending approvals of one run, oldest first:
// shell commands, one of them a quorum-2 approval with one vote.
func pendingApprovals(n int) []*hitl.Question {
	qs := make([]*hitl.Question, n)
	for i := range qs {
		q := question(hitl.Approval, hitl.ApprovalResponse)
		q.ID, q.CreatedAt = fmt.Sprintf("q_batch%02d", i), t0.Add(time.Duration(i)*time.Minute)
		q.Question = fmt.Sprintf("Clean build %d?", i)
		q.Rule = "shell-asks"
		q.Operation = &hitl.Operation{Type: hitl.OpShell, Description: q.Question, Resource: fmt.Sprintf("rm -rf /tmp/build-%d", i), Risk: hitl.RiskMedium}
		qs[i] = q
	}
	if n > 1 {
		q := qs[1]
		q.Question = "Edit src/billing.go"
		q.Operation = &hitl.Operation{Type: hitl.OpFileWrite, Description: "Edit src/billing.go", Resource: "src/billing.go",
			Diffs: []hitl.FileDiff{{Path: "src/billing.go", Change: hitl.FileModify, Added: 3, Removed: 1, Unified: "@@ -1 +1,3 @@\n-a\n+b\n+c\n+d\n"}}}
	}
	if n > 2 {
		q := qs[2]
		q.Question = "Apply a patch"
		q.Operation = &hitl.Operation{Type: hitl.OpFileWrite, Description: "Apply a patch", Diffs: []hitl.FileDiff{
			{Path: "a.go", Change: hitl.FileModify, Added: 1, Removed: 1},
			{Path: "b.go", Change: hitl.FileModify, Problem: "old_string is not in the file"}}}
	}
	if n > 3 {
		q := qs[3]
		q.Rule, q.Quorum, q.Approvers = "two-person-deploys", 2, []string{"U0A", "U0B"}
		q.Operation = &hitl.Operation{Type: "deploy", Description: "Deploy build 41", Resource: "prod/web", Risk: hitl.RiskHigh}
		q.Approvals = []hitl.Grant{{By: "slack:U0A", User: "U0A", At: t0}}
	}
	return qs
}

func TestBatchModalGolden(t *testing.T) {
	twelve := pendingApprovals(12)
	many := pendingApprovals(45)
	answeredOne := answered(twelve[0].Clone(), "slack:U0ANSWER1", &hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Approve})
	counted := twelve[3].Clone()
	counted.Approvals = append(counted.Approvals, hitl.Grant{By: "slack:U0B", User: "U0B", At: t0})
	other := answered(twelve[5].Clone(), "slack:U0OTHER", &hitl.Response{Type: hitl.ApprovalResponse, Value: hitl.Deny})
	results := []hitl.BatchResult{
		{QuestionID: answeredOne.ID, Question: answeredOne},
		{QuestionID: twelve[4].ID, Question: twelve[4]}, // one approval of two: still pending
		{QuestionID: other.ID, Err: hitl.Conflict(other)},
		{QuestionID: "q_batch07", Err: fault.Errorf(fault.EFORBIDDEN, "slack:U0ANSWER1 is not one of the approvers of q_batch07")},
	}
	twelve[4].Quorum, twelve[4].Approvals = 2, []hitl.Grant{{By: "slack:U0ANSWER1", At: t0}}
	cases := []struct {
		name string
		v    BatchView
	}{
		{"batch_run_twelve", BatchView{Scope: BatchScope{Run: "loop-1703123456-12345"}, Items: twelve, Total: 12}},
		{"batch_mine_first_page", BatchView{Items: many[:BatchPageSize], Total: 45}},
		{"batch_mine_middle_page", BatchView{Scope: BatchScope{Offset: 20}, Items: many[20:40], Total: 45}},
		{"batch_results_and_rest", BatchView{Scope: BatchScope{Run: "loop-1703123456-12345"}, Items: twelve[8:], Total: 4, Results: results}},
		{"batch_results_none_left", BatchView{Scope: BatchScope{Run: "loop-1703123456-12345"}, Results: results[:1]}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := BatchModal(c.v)
			validate(t, m, allowedFixture...)
			golden(t, c.name, m)
		})
	}
}

// TestBatchModalStaysWithinSlacksLimits: whatever it is given, a batch
// modal holds at most BatchPageSize approvals, MaxCheckboxes per group,
// MaxViewBlocks blocks, a 24-character title and MaxPrivateMetadata of
// metadata, and lists in its metadata exactly the approvals it shows.
func TestBatchModalStaysWithinSlacksLimits(t *testing.T) {
	long := pendingApprovals(100)
	for i, q := range long {
		q.ID = "q_" + strings.Repeat(fmt.Sprintf("%x", i%16), MaxQuestionIDLen-2) // ids as long as a block id allows
		q.Operation.Resource = hostile(5000)
		q.Question = hostile(5000)
		q.RunID = strings.Repeat("r", 128)
	}
	for _, n := range []int{0, 1, 10, 11, 20, 21, 100} {
		t.Run(fmt.Sprintf("%d approvals", n), func(t *testing.T) {
			m := BatchModal(BatchView{Scope: BatchScope{Run: strings.Repeat("r", 128), Offset: 3}, Items: long[:n], Total: n + 3,
				Results: []hitl.BatchResult{{QuestionID: long[0].ID, Err: fault.Errorf(fault.EINVALID, "%s", hostile(4000))}}})
			validate(t, m, allowedFixture...)
			assert.LessOrEqual(t, len(m.Blocks.BlockSet), MaxViewBlocks)
			assert.LessOrEqual(t, Len(m.Title.Text), MaxModalTitle)
			require.LessOrEqual(t, Len(m.PrivateMetadata), MaxPrivateMetadata)
			var meta batchMetadata
			require.NoError(t, json.Unmarshal([]byte(m.PrivateMetadata), &meta))
			shown := 0
			for _, b := range m.Blocks.BlockSet {
				in, ok := b.(*slack.InputBlock)
				if !ok || !strings.HasPrefix(in.BlockID, blockBatchPick) {
					continue
				}
				cb := in.Element.(*slack.CheckboxGroupsBlockElement)
				assert.LessOrEqual(t, len(cb.Options), MaxCheckboxes)
				shown += len(cb.Options)
			}
			assert.Equal(t, shown, len(meta.IDs), "one checkbox per listed approval")
			assert.LessOrEqual(t, shown, min(n, BatchPageSize))
			if n > 0 {
				assert.Positive(t, shown, "long ids leave fewer approvals on the page, never none")
			}
		})
	}
}

func TestParseBatchSubmission(t *testing.T) {
	m := BatchModal(BatchView{Scope: BatchScope{Run: "loop-1"}, Items: pendingApprovals(12), Total: 12})
	state := func(picks map[string][]string, decision, reason string) map[string]map[string]slack.BlockAction {
		vals := map[string]map[string]slack.BlockAction{}
		for block, idx := range picks {
			var opts []slack.OptionBlockObject
			for _, i := range idx {
				opts = append(opts, slack.OptionBlockObject{Value: i})
			}
			vals[block] = map[string]slack.BlockAction{InputActionID: {SelectedOptions: opts}}
		}
		vals[BlockBatchDecision] = map[string]slack.BlockAction{InputActionID: {SelectedOption: slack.OptionBlockObject{Value: decision}}}
		vals[BlockBatchReason] = map[string]slack.BlockAction{InputActionID: {Value: reason}}
		return vals
	}
	for _, tc := range []struct {
		name     string
		meta     string
		values   map[string]map[string]slack.BlockAction
		selected []string
		code     string
	}{
		{name: "the checked approvals of both groups, in list order", meta: m.PrivateMetadata,
			values:   state(map[string][]string{"pick/1": {"11", "10"}, "pick/0": {"0", "3"}}, hitl.Approve, ""),
			selected: []string{"q_batch00", "q_batch03", "q_batch10", "q_batch11"}},
		{name: "nothing checked is no selection", meta: m.PrivateMetadata, values: state(nil, hitl.Deny, "no")},
		{name: "a checkbox beyond the list is refused", meta: m.PrivateMetadata,
			values: state(map[string][]string{"pick/1": {"12"}}, hitl.Approve, ""), code: fault.EINVALID},
		{name: "a checkbox that is not a number is refused", meta: m.PrivateMetadata,
			values: state(map[string][]string{"pick/0": {"q_batch00"}}, hitl.Approve, ""), code: fault.EINVALID},
		{name: "no decision is refused", meta: m.PrivateMetadata, values: state(map[string][]string{"pick/0": {"0"}}, "", ""), code: fault.EINVALID},
		{name: "a reply is not a batch decision", meta: m.PrivateMetadata, values: state(map[string][]string{"pick/0": {"0"}}, hitl.Reply, "x"), code: fault.EINVALID},
		{name: "metadata that is not ours is refused", meta: `{"ids":["not an id"]}`, values: state(nil, hitl.Approve, ""), code: fault.EINVALID},
		{name: "more ids than a page holds are refused", meta: `{"ids":[` + strings.Repeat(`"q_1",`, BatchPageSize) + `"q_1"]}`, values: state(nil, hitl.Approve, ""), code: fault.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseBatchSubmission(tc.meta, tc.values)
			if tc.code != "" {
				require.Equal(t, tc.code, fault.Code(err), "%v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.selected, s.Selected)
			assert.Equal(t, "loop-1", s.Scope.Run)
			assert.Len(t, s.Listed, 12)
		})
	}
}

func TestParseReview(t *testing.T) {
	for _, tc := range []struct {
		name, block, value string
		run                string
		ok                 bool
	}{
		{"App Home's button: the person's own", "review", "", "", true},
		{"a run's button: that run", RunBlockID("loop-1"), "loop-1", "loop-1", true},
		{"a value that disagrees with its block", RunBlockID("loop-1"), "loop-2", "", false},
		{"a run's block without a value", RunBlockID("loop-1"), "", "", false},
		{"another block", "q:q_1", "loop-1", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseReview(tc.block, tc.value)
			if !tc.ok {
				assert.Equal(t, fault.EINVALID, fault.Code(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.run, s.Run)
		})
	}
}

func TestReviewIsOfferedFromTwoApprovals(t *testing.T) {
	t.Run("a run's live message", func(t *testing.T) {
		r := run(steer.RunRunning)
		r.PendingApproval = 1
		assert.NotContains(t, string(goldenJSON(t, RunMessage(RunView{Run: r, Now: t0}))), ActionReview)
		r.PendingApproval = 12
		m := RunMessage(RunView{Run: r, Now: t0})
		validate(t, m)
		golden(t, "run_review_approvals", m)
	})
	t.Run("App Home", func(t *testing.T) {
		one := pendingApprovals(1)
		assert.NotContains(t, string(goldenJSON(t, HomeView("U0HOMEUSER", one, nil, opts))), ActionReview)
		v := HomeView("U0HOMEUSER", pendingApprovals(3), nil, opts)
		validate(t, v, allowedFixture...)
		golden(t, "home_review_approvals", v)
	})
}
