package blocks

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/slack-go/slack"
)

// Batch approval: "Review N approvals…" on a run's live message (the
// run's pending approvals) and in App Home (the person's own) opens
// BatchModal: every approval of the page shown whole enough to decide on
// (its operation, its command line or its diff in brief, the rule that
// asked and how far its quorum is), a checkbox each, Approve selected / Deny selected and one
// optional reason. Each selected approval is then answered alone, by the
// root's answer path; the modal is updated with what became of each
// (BatchModal's Results) and the next page.

// Batch action ids, callback id and block ids.
const (
	// ActionReview opens BatchModal. Its value is the run id on a run's
	// live message (block RunBlockID), empty in App Home (the clicker's
	// own approvals).
	ActionReview = ActionPrefix + "review"
	// ActionBatchPrev and ActionBatchNext show another page of a batch
	// modal; their value is that page's BatchScope (JSON).
	ActionBatchPrev = ActionPrefix + "batch_prev"
	ActionBatchNext = ActionPrefix + "batch_next"
	CallbackBatch   = "hitl/batch"

	blockBatchPick     = "pick/" // + group: a checkboxes group of up to MaxCheckboxes approvals
	BlockBatchDecision = "decision"
	BlockBatchReason   = "batch_reason"
	blockBatchPages    = "batch_pages"
	blockReview        = "review"

	// BatchPageSize is how many approvals a batch modal lists: two
	// checkbox groups, each approval a section, within MaxViewBlocks.
	BatchPageSize = 2 * MaxCheckboxes
)

// BatchScope is what a batch modal lists: a run's pending approvals, or
// (Run empty) the person's own, from Offset on.
type BatchScope struct {
	Run    string `json:"r,omitempty"`
	Offset int    `json:"o,omitempty"`
}

// batchMetadata is a batch modal's private_metadata: its scope and the
// ids of the approvals it lists, in order (a checkbox's value is its
// index here).
type batchMetadata struct {
	BatchScope
	IDs []string `json:"ids"`
}

// BatchView is a batch modal's content.
type BatchView struct {
	Scope BatchScope
	// Items are the page's pending approvals, oldest first; Total counts
	// the scope's pending approvals (the page is Items from
	// Scope.Offset).
	Items []*hitl.Question
	Total int
	// Results is what the last submission did, shown first.
	Results []hitl.BatchResult
}

// ReviewButton is "Review N approvals…" for n pending approvals of run
// (empty: the clicker's own).
func ReviewButton(run string, n int) *slack.ButtonBlockElement {
	return button(ActionReview, run, "📋 Review "+itoa(n)+" approvals…", "")
}

// ParseReview reads a click on ActionReview: the run it names (block
// RunBlockID, value the run id), or none in App Home.
func ParseReview(blockID, value string) (BatchScope, error) {
	if blockID == blockReview && value == "" {
		return BatchScope{}, nil
	}
	id, ok := strings.CutPrefix(blockID, runBlockPrefix)
	if !ok || id != value || steer.ValidateRunID(id) != nil {
		return BatchScope{}, fault.Errorf(fault.EINVALID, "this Review button names no run")
	}
	return BatchScope{Run: id}, nil
}

// ReviewBlock is App Home's "Review N approvals…" (the person's own).
func ReviewBlock(n int) slack.Block {
	return slack.NewActionBlock(blockReview, ReviewButton("", n))
}

// ParseBatchPage reads a click on a batch modal's page button.
func ParseBatchPage(value string) (BatchScope, error) {
	var s BatchScope
	if len(value) > MaxButtonValue || json.Unmarshal([]byte(value), &s) != nil || s.Offset < 0 ||
		(s.Run != "" && steer.ValidateRunID(s.Run) != nil) {
		return BatchScope{}, fault.Errorf(fault.EINVALID, "this page button is not valid")
	}
	return s, nil
}

// BatchModal renders v within Slack's limits: at most BatchPageSize
// approvals, MaxCheckboxes per checkbox group, MaxViewBlocks blocks and
// MaxPrivateMetadata of metadata (fewer approvals when ids are long).
func BatchModal(v BatchView) slack.ModalViewRequest {
	items := v.Items[:min(len(v.Items), BatchPageSize)]
	meta := batchMetadata{BatchScope: v.Scope}
	for {
		meta.IDs = meta.IDs[:0]
		for _, q := range items {
			meta.IDs = append(meta.IDs, q.ID)
		}
		if b, _ := json.Marshal(meta); Len(string(b)) <= MaxPrivateMetadata || len(items) == 0 {
			break
		}
		items = items[:len(items)-1]
	}
	b, _ := json.Marshal(meta)

	var bs []slack.Block
	if len(v.Results) > 0 {
		bs = append(bs, resultBlocks(v.Results)...)
	}
	scope := "on you"
	if v.Scope.Run != "" {
		scope = "in run " + code(oneLine(v.Scope.Run), 200)
	}
	if len(items) == 0 {
		bs = append(bs, section("No approvals are waiting "+scope+" any more."))
		return slack.ModalViewRequest{Type: slack.VTModal, Title: plainText("Approvals"), Close: plainText("Close"),
			CallbackID: CallbackBatch, PrivateMetadata: string(b), Blocks: slack.Blocks{BlockSet: bs}}
	}
	first, last := v.Scope.Offset+1, v.Scope.Offset+len(items)
	head := "*" + itoa(v.Total) + " approvals are waiting " + scope + ".*"
	if v.Total > len(items) {
		head += " Showing " + itoa(first) + "–" + itoa(last) + "."
	}
	head += " Each one you select is answered as if you had answered it alone: who may approve, quorums and rules apply to each."
	bs = append(bs, section(head))
	for g := 0; g*MaxCheckboxes < len(items); g++ {
		group := items[g*MaxCheckboxes : min(len(items), (g+1)*MaxCheckboxes)]
		opts := make([]*slack.OptionBlockObject, len(group))
		for i, q := range group {
			n := g*MaxCheckboxes + i
			bs = append(bs, batchItem(q, v.Scope.Offset+n+1))
			label := plain(itoa(v.Scope.Offset+n+1)+". "+oneLine(batchLabel(q)), MaxOptionText, itoa(n+1))
			opts[i] = slack.NewOptionBlockObject(strconv.Itoa(n), plainText(label), nil)
		}
		pick := slack.NewInputBlock(blockBatchPick+itoa(g), plainText("Select"), nil, slack.NewCheckboxGroupsBlockElement(InputActionID, opts...))
		pick.Optional = true
		bs = append(bs, pick)
	}
	decision := slack.NewRadioButtonsBlockElement(InputActionID,
		slack.NewOptionBlockObject(hitl.Approve, plainText("✅ Approve selected"), nil),
		slack.NewOptionBlockObject(hitl.Deny, plainText("⛔ Deny selected"), nil))
	bs = append(bs, slack.NewInputBlock(BlockBatchDecision, plainText("Decision"), nil, decision))
	reason := slack.NewInputBlock(BlockBatchReason, plainText("Reason (optional, for a denial)"),
		plainText("Every agent you deny receives it."), textInput("Why not?", false))
	reason.Optional = true
	reason.Element.(*slack.PlainTextInputBlockElement).FocusOnLoad = false
	bs = append(bs, reason)
	if pages := pageButtons(v.Scope, len(items), v.Total); pages != nil {
		bs = append(bs, pages)
	}
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		Title:           plainText(Truncate("Review approvals", MaxModalTitle, "")),
		Submit:          plainText("Answer selected"),
		Close:           plainText("Close"),
		CallbackID:      CallbackBatch,
		PrivateMetadata: string(b),
		Blocks:          slack.Blocks{BlockSet: bs},
	}
}

// batchItem shows one approval whole enough to decide on: its question,
// operation and resource, the rule that asked, its quorum so far.
func batchItem(q *hitl.Question, n int) slack.Block {
	text, _ := escapeCut(oneLine(q.Question), 300, ellipsis)
	s := "*" + itoa(n) + ".* " + text
	if op := q.Operation; op != nil {
		s += "\n*" + string(op.Type) + "*"
		if r := riskText(op.Risk); r != "" {
			s += " · " + r
		}
		if op.Resource != "" {
			s += "\n" + code(op.Resource, 1200)
		}
		s += diffSummary(op)
	}
	var why []string
	if q.Rule != "" {
		e, _ := escapeCut(oneLine(q.Rule), 150, ellipsis)
		why = append(why, "asked by rule *"+e+"*")
	}
	if q.NeedsSeveral() {
		why = append(why, q.Tally())
	}
	why = append(why, "run "+code(oneLine(q.RunID), 150), "`"+q.ID+"`")
	s += "\n" + strings.Join(why, " · ")
	if parts := partsText(q.Parts, 1000); parts != "" {
		s += "\n" + parts
	}
	return section(Truncate(s, MaxSectionText, "\n"+MarkerCut))
}

// maxBatchDiffFiles bounds the files a batch item names.
const maxBatchDiffFiles = 5

// diffSummary is a file operation's diff in brief: each file with its
// lines added and removed (or why there is no diff), for the whole diff
// see the approval's own message or web page.
func diffSummary(op *hitl.Operation) string {
	if len(op.Diffs) == 0 {
		return ""
	}
	var lines []string
	for i, d := range op.Diffs {
		if i == maxBatchDiffFiles {
			lines = append(lines, "…and "+itoa(len(op.Diffs)-i)+" more files")
			break
		}
		line := code(oneLine(d.Path), 300) + " " + DiffStat(d.Added, d.Removed)
		if d.Problem != "" {
			why, _ := escapeCut(oneLine(d.Problem), 200, ellipsis)
			line = code(oneLine(d.Path), 300) + " ⚠️ " + why
		}
		lines = append(lines, line)
	}
	return "\n" + strings.Join(lines, "\n")
}

// batchLabel is an approval's checkbox text: its resource, its file
// change ("src/billing.go +3 −1"), or its question.
func batchLabel(q *hitl.Question) string {
	switch op := q.Operation; {
	case op != nil && op.Resource != "":
		if len(op.Diffs) > 0 {
			return op.Resource + " " + DiffStat(op.DiffStat())
		}
		return op.Resource
	case op != nil && len(op.Diffs) > 0:
		return op.Diffs[0].Path + " " + DiffStat(op.DiffStat())
	}
	return q.Question
}

// pageButtons are ‹ Previous and Next › when the scope has more approvals
// than the page.
func pageButtons(s BatchScope, shown, total int) slack.Block {
	var els []slack.BlockElement
	value := func(o int) string {
		b, _ := json.Marshal(BatchScope{Run: s.Run, Offset: o})
		return string(b)
	}
	if s.Offset > 0 {
		els = append(els, button(ActionBatchPrev, value(max(0, s.Offset-BatchPageSize)), "‹ Previous", ""))
	}
	if s.Offset+shown < total {
		els = append(els, button(ActionBatchNext, value(s.Offset+shown), "Next ›", ""))
	}
	if len(els) == 0 {
		return nil
	}
	return slack.NewActionBlock(blockBatchPages, els...)
}

// resultBlocks report what a submission did: the answered ones, then the
// refused ones with why (at most two sections, cut visibly).
func resultBlocks(rs []hitl.BatchResult) []slack.Block {
	var done, refused []string
	for _, r := range rs {
		id := "`" + r.QuestionID + "`"
		switch {
		case r.Err != nil:
			why, _ := escapeCut(oneLine(fault.Message(r.Err)), 300, ellipsis)
			refused = append(refused, "• "+id+" — "+why)
		case r.Question != nil && r.Question.Pending():
			done = append(done, "• "+id+" — your approval is counted ("+r.Question.Tally()+")")
		case r.Question != nil:
			done = append(done, "• "+id+" — "+outcomeShort(r.Question))
		}
	}
	var bs []slack.Block
	if len(done) > 0 {
		bs = append(bs, section(Truncate("*✅ Answered "+itoa(len(done))+"*\n"+strings.Join(done, "\n"), MaxSectionText, "\n"+MarkerCut)))
	}
	if len(refused) > 0 {
		bs = append(bs, section(Truncate("*🚫 Refused "+itoa(len(refused))+"*\n"+strings.Join(refused, "\n"), MaxSectionText, "\n"+MarkerCut)))
	}
	return append(bs, slack.NewDividerBlock())
}

// BatchSubmission is a submitted batch modal: its scope, the approvals it
// listed, those selected (a subset, in order) and the decision.
type BatchSubmission struct {
	Scope    BatchScope
	Listed   []string
	Selected []string
	Decision string // hitl.Approve or hitl.Deny
	Reason   string
}

// ParseBatchSubmission parses a batch modal's submission. A checkbox that
// names no listed approval is EINVALID; so is a submission without a
// decision. Selecting none is not an error here (the bot says so).
func ParseBatchSubmission(privateMetadata string, values map[string]map[string]slack.BlockAction) (BatchSubmission, error) {
	var m batchMetadata
	if len(privateMetadata) > 4*MaxPrivateMetadata || json.Unmarshal([]byte(privateMetadata), &m) != nil {
		return BatchSubmission{}, fault.Errorf(fault.EINVALID, "the view's metadata is not valid")
	}
	if len(m.IDs) > BatchPageSize || m.Offset < 0 || (m.Run != "" && steer.ValidateRunID(m.Run) != nil) {
		return BatchSubmission{}, fault.Errorf(fault.EINVALID, "the view's metadata is not valid")
	}
	for _, id := range m.IDs {
		if !validQuestionID(id) {
			return BatchSubmission{}, fault.Errorf(fault.EINVALID, "the view's metadata names no question")
		}
	}
	s := BatchSubmission{Scope: m.BatchScope, Listed: m.IDs}
	picked := make([]bool, len(m.IDs))
	for block, v := range values {
		if !strings.HasPrefix(block, blockBatchPick) {
			continue
		}
		for _, o := range v[InputActionID].SelectedOptions {
			i, err := parseIndex(o.Value)
			if err != nil || i >= len(m.IDs) {
				return BatchSubmission{}, fault.Errorf(fault.EINVALID, "a selected approval is not in this list")
			}
			picked[i] = true
		}
	}
	for i, ok := range picked {
		if ok {
			s.Selected = append(s.Selected, m.IDs[i])
		}
	}
	s.Decision = values[BlockBatchDecision][InputActionID].SelectedOption.Value
	if s.Decision != hitl.Approve && s.Decision != hitl.Deny {
		return BatchSubmission{}, fault.Errorf(fault.EINVALID, "choose Approve selected or Deny selected")
	}
	s.Reason = values[BlockBatchReason][InputActionID].Value
	if n := Len(s.Reason); n > hitl.MaxAnswerLen {
		return BatchSubmission{}, fault.Errorf(fault.EINVALID, "the reason is longer than %d characters", hitl.MaxAnswerLen)
	}
	return s, nil
}
