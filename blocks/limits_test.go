package blocks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/slack-go/slack"
)

// The validator walks the marshalled JSON of a rendered message or view and
// checks every Slack limit this package promises to respect, plus safety:
// mrkdwn holds no mention, link or special token but the allowed ones, and
// every & starts an entity.

type validator struct {
	errs    []string
	allowed map[string]bool // mention tokens allowed, like "@U024BE7LH" or "!subteam^S0614TZR7"
}

func (v *validator) errorf(path, format string, args ...any) {
	if len(v.errs) < 20 {
		v.errs = append(v.errs, path+": "+fmt.Sprintf(format, args...))
	}
}

func (v *validator) maxLen(path, s string, n int) {
	if Len(s) > n {
		v.errorf(path, "length %d > %d", Len(s), n)
	}
}

// validate checks value, a Message, a slack.ModalViewRequest or a
// slack.HomeTabViewRequest, and fails t with every violation.
func validate(t *testing.T, value any, allowed ...string) {
	t.Helper()
	b, err := json.Marshal(value)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	v := &validator{allowed: map[string]bool{}}
	for _, a := range allowed {
		v.allowed[a] = true
	}
	switch doc["type"] {
	case "modal", "home":
		v.view(doc)
	default:
		v.message(doc)
	}
	if len(v.errs) > 0 {
		t.Errorf("limits broken:\n  %s", strings.Join(v.errs, "\n  "))
	}
}

func (v *validator) message(m map[string]any) {
	text, _ := m["text"].(string)
	if text == "" {
		v.errorf("text", "empty fallback text")
	}
	v.maxLen("text", text, MaxMessageText)
	v.maxLen("text", text, MaxFallbackText)
	v.safe("text", text)
	bs, _ := m["blocks"].([]any)
	if len(bs) == 0 || len(bs) > MaxMessageBlocks {
		v.errorf("blocks", "%d blocks, want 1..%d", len(bs), MaxMessageBlocks)
	}
	v.blocks("blocks", bs)
}

func (v *validator) view(m map[string]any) {
	bs, _ := m["blocks"].([]any)
	if len(bs) == 0 || len(bs) > MaxViewBlocks {
		v.errorf("blocks", "%d blocks, want 1..%d", len(bs), MaxViewBlocks)
	}
	v.blocks("blocks", bs)
	meta, _ := m["private_metadata"].(string)
	v.maxLen("private_metadata", meta, MaxPrivateMetadata)
	cb, _ := m["callback_id"].(string)
	v.maxLen("callback_id", cb, MaxCallbackID)
	if m["type"] != "modal" {
		return
	}
	v.text("title", m["title"], MaxModalTitle, true)
	hasInput := false
	for _, b := range bs {
		hasInput = hasInput || b.(map[string]any)["type"] == "input"
	}
	if hasInput || m["submit"] != nil {
		v.text("submit", m["submit"], MaxModalButton, true)
	}
	if m["close"] != nil {
		v.text("close", m["close"], MaxModalButton, true)
	}
}

func (v *validator) blocks(path string, bs []any) {
	ids := map[string]bool{}
	for i, raw := range bs {
		p := fmt.Sprintf("%s[%d]", path, i)
		b, ok := raw.(map[string]any)
		if !ok {
			v.errorf(p, "not an object")
			continue
		}
		if id, _ := b["block_id"].(string); id != "" {
			v.maxLen(p+".block_id", id, MaxBlockID)
			if ids[id] {
				v.errorf(p+".block_id", "duplicate %q", id)
			}
			ids[id] = true
		}
		v.block(p, b)
	}
}

func (v *validator) block(p string, b map[string]any) {
	switch b["type"] {
	case "header":
		v.text(p+".text", b["text"], MaxHeaderText, true)
	case "section":
		if b["text"] == nil && b["fields"] == nil {
			v.errorf(p, "section without text or fields")
		}
		if b["text"] != nil {
			v.text(p+".text", b["text"], MaxSectionText, false)
		}
		fields, _ := b["fields"].([]any)
		if len(fields) > MaxSectionFields {
			v.errorf(p+".fields", "%d fields", len(fields))
		}
		for i, f := range fields {
			v.text(fmt.Sprintf("%s.fields[%d]", p, i), f, MaxSectionField, false)
		}
		if acc, ok := b["accessory"].(map[string]any); ok {
			v.element(p+".accessory", acc)
		}
	case "context":
		els, _ := b["elements"].([]any)
		if len(els) == 0 || len(els) > MaxContextElements {
			v.errorf(p+".elements", "%d elements, want 1..%d", len(els), MaxContextElements)
		}
		for i, e := range els {
			v.text(fmt.Sprintf("%s.elements[%d]", p, i), e, MaxTextObject, false)
		}
	case "actions":
		els, _ := b["elements"].([]any)
		if len(els) == 0 || len(els) > MaxActionsElements {
			v.errorf(p+".elements", "%d elements, want 1..%d", len(els), MaxActionsElements)
		}
		actionIDs := map[string]bool{}
		for i, raw := range els {
			ep := fmt.Sprintf("%s.elements[%d]", p, i)
			e, _ := raw.(map[string]any)
			id, _ := e["action_id"].(string)
			if actionIDs[id] {
				v.errorf(ep+".action_id", "duplicate %q in block", id)
			}
			actionIDs[id] = true
			v.element(ep, e)
		}
	case "input":
		if id, _ := b["block_id"].(string); id == "" {
			v.errorf(p+".block_id", "input without block_id")
		}
		v.text(p+".label", b["label"], MaxInputLabel, true)
		if b["hint"] != nil {
			v.text(p+".hint", b["hint"], MaxInputHint, true)
		}
		e, _ := b["element"].(map[string]any)
		v.element(p+".element", e)
	case "divider":
	default:
		v.errorf(p, "unexpected block type %v", b["type"])
	}
}

func (v *validator) element(p string, e map[string]any) {
	id, _ := e["action_id"].(string)
	if id == "" {
		v.errorf(p+".action_id", "missing")
	}
	v.maxLen(p+".action_id", id, MaxActionID)
	switch e["type"] {
	case "button":
		v.text(p+".text", e["text"], MaxButtonText, true)
		val, _ := e["value"].(string)
		v.maxLen(p+".value", val, MaxButtonValue)
		if s, _ := e["style"].(string); s != "" && s != "primary" && s != "danger" {
			v.errorf(p+".style", "bad style %q", s)
		}
		if c, ok := e["confirm"].(map[string]any); ok {
			v.text(p+".confirm.title", c["title"], MaxConfirmTitle, true)
			v.text(p+".confirm.text", c["text"], MaxConfirmText, true)
			v.text(p+".confirm.confirm", c["confirm"], MaxConfirmButton, true)
			v.text(p+".confirm.deny", c["deny"], MaxConfirmButton, true)
		}
	case "checkboxes", "radio_buttons":
		opts, _ := e["options"].([]any)
		if len(opts) == 0 || len(opts) > MaxCheckboxes {
			v.errorf(p+".options", "%d options, want 1..%d", len(opts), MaxCheckboxes)
		}
		for i, raw := range opts {
			o, _ := raw.(map[string]any)
			v.text(fmt.Sprintf("%s.options[%d].text", p, i), o["text"], MaxOptionText, true)
		}
	case "static_select", "multi_static_select":
		if e["placeholder"] != nil {
			v.text(p+".placeholder", e["placeholder"], MaxPlaceholder, true)
		}
		opts, _ := e["options"].([]any)
		if len(opts) == 0 || len(opts) > MaxSelectOptions {
			v.errorf(p+".options", "%d options, want 1..%d", len(opts), MaxSelectOptions)
		}
		values := map[string]bool{}
		for i, raw := range opts {
			op := fmt.Sprintf("%s.options[%d]", p, i)
			o, _ := raw.(map[string]any)
			v.text(op+".text", o["text"], MaxOptionText, true)
			val, _ := o["value"].(string)
			if val == "" || values[val] {
				v.errorf(op+".value", "empty or duplicate %q", val)
			}
			values[val] = true
			v.maxLen(op+".value", val, MaxOptionValue)
			if o["description"] != nil {
				v.text(op+".description", o["description"], MaxOptionDesc, true)
			}
		}
	case "plain_text_input":
		if e["placeholder"] != nil {
			v.text(p+".placeholder", e["placeholder"], MaxPlaceholder, true)
		}
		maxLength, _ := e["max_length"].(float64)
		if maxLength < 0 || maxLength > MaxInputLength {
			v.errorf(p+".max_length", "%v out of 1..%d", maxLength, MaxInputLength)
		}
	case "users_select":
		v.text(p+".placeholder", e["placeholder"], MaxPlaceholder, true)
	default:
		v.errorf(p, "unexpected element type %v", e["type"])
	}
}

// text checks a text object: its type, a non-empty text within n, emoji
// only on plain_text, verbatim on mrkdwn, and mrkdwn safety.
func (v *validator) text(p string, raw any, n int, plainOnly bool) {
	t, ok := raw.(map[string]any)
	if !ok {
		v.errorf(p, "missing text object")
		return
	}
	s, _ := t["text"].(string)
	if strings.TrimSpace(s) == "" {
		v.errorf(p, "empty text")
	}
	v.maxLen(p+".text", s, n)
	switch t["type"] {
	case "plain_text":
		if t["verbatim"] != nil {
			v.errorf(p, "verbatim on plain_text")
		}
	case "mrkdwn":
		if plainOnly {
			v.errorf(p, "mrkdwn where Slack wants plain_text")
		}
		if t["emoji"] != nil {
			v.errorf(p, "emoji on mrkdwn")
		}
		if t["verbatim"] != true {
			v.errorf(p, "mrkdwn without verbatim")
		}
		v.safe(p, s)
	default:
		v.errorf(p, "bad text type %v", t["type"])
	}
}

var (
	token     = regexp.MustCompile(`<([^<>]*)>`)
	dateToken = regexp.MustCompile(`^!date\^-?\d+\^\{date_short_pretty\} at \{time\}\|[A-Za-z0-9 ,:]+$`)
	entity    = regexp.MustCompile(`&(amp|lt|gt);`)
)

// safe checks mrkdwn: every <…> token is an allowed mention or a date, no
// stray < or > is left, and every & starts an entity.
func (v *validator) safe(p, s string) {
	for _, m := range token.FindAllStringSubmatch(s, -1) {
		if !v.allowed[m[1]] && !dateToken.MatchString(m[1]) {
			v.errorf(p, "token <%s> is not allowed", Truncate(m[1], 60, "…"))
		}
	}
	rest := token.ReplaceAllString(s, "")
	if strings.ContainsAny(rest, "<>") {
		v.errorf(p, "stray < or > in %q", Truncate(rest, 80, "…"))
	}
	if strings.Count(rest, "&") != len(entity.FindAllString(rest, -1)) {
		v.errorf(p, "& that starts no entity")
	}
}

// mentionTokens lists the tokens mention renders for ids.
func mentionTokens(ids ...string) []string {
	var out []string
	for _, id := range ids {
		if m := mention(id); strings.HasPrefix(m, "<") {
			out = append(out, strings.Trim(m, "<>"))
		}
	}
	return out
}

func TestValidatorCatches(t *testing.T) {
	bad := Message{Text: "hi <!channel> & co", Blocks: []slack.Block{
		slack.NewHeaderBlock(plainText(strings.Repeat("x", 151))),
		slack.NewActionBlock("q:x", button("a", "", "one", ""), button("a", "", "two", "")),
		slack.NewActionBlock("q:x", slack.NewButtonBlockElement("b", "", plainText(strings.Repeat("y", 76)))),
	}}
	b, _ := json.Marshal(bad)
	var doc map[string]any
	_ = json.Unmarshal(b, &doc)
	v := &validator{allowed: map[string]bool{}}
	v.message(doc)
	want := []string{"token <!channel>", "& that starts no entity", "blocks[0].text.text: length 151", "duplicate \"a\"", "duplicate \"q:x\"", "blocks[2].elements[0].text.text: length 76"}
	got := strings.Join(v.errs, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("validator missed %q; got:\n%s", w, got)
		}
	}
}

// allShapes returns pending questions of every type, hostile or not.
func allShapes(hostileInputs bool) map[string]*hitl.Question {
	shapes := map[string]*hitl.Question{}
	add := func(name string, q *hitl.Question) {
		if hostileInputs {
			q = hostileQuestion(q)
		}
		shapes[name] = q
	}
	add("approval", question(hitl.Approval, hitl.ApprovalResponse))
	add("boolean", question(hitl.Blocking, hitl.BooleanResponse))
	add("choice", question(hitl.Blocking, hitl.ChoiceResponse))
	sel := question(hitl.ErrorRecovery, hitl.ChoiceResponse)
	sel.Options = manyOptions(12)
	add("select", sel)
	add("text", question(hitl.Blocking, hitl.TextResponse))
	pw := question(hitl.Blocking, hitl.TextResponse)
	pw.InputType, pw.Sensitive = hitl.PasswordInput, true
	add("sensitive", pw)
	nb := question(hitl.NonBlocking, hitl.TextResponse)
	nb.TimeoutAt, nb.DefaultResponse = nil, &hitl.Response{Type: hitl.TextResponse, Value: hostile(10000)}
	add("non_blocking", nb)
	reopened := question(hitl.Blocking, hitl.TextResponse)
	reopened.Sensitive, reopened.Notice = true, reopenedNotice
	add("reopened", reopened)
	op := question(hitl.Approval, hitl.ApprovalResponse)
	op.Operation = &hitl.Operation{Type: hitl.OpShell, Description: "clean up", Resource: "rm -rf /tmp/build", Risk: hitl.RiskHigh, Agent: "api:ci"}
	op.Rule = "shell commands"
	add("operation", op)
	quorum := question(hitl.Approval, hitl.ApprovalResponse)
	quorum.Operation = &hitl.Operation{Type: hitl.OpFileDelete, Description: "drop", Resource: "/var/db", Agent: "api:ci"}
	quorum.Quorum, quorum.Approvers = 2, []string{"U024BE7LH", "S0614TZR7"}
	quorum.Approvals = []hitl.Grant{{By: "slack:U024BE7LH", At: t0}}
	add("quorum", quorum)
	multi := question(hitl.Blocking, hitl.ChoiceResponse)
	multi.MultiSelect = true
	add("multi", multi)
	if hostileInputs {
		op.Operation.Resource, op.Operation.Agent, op.Rule = hostile(4000), hostile(200), hostile(300)
		quorum.Operation.Resource = hostile(4000)
		quorum.Approvers = quorum.Assignees
		quorum.Approvals = []hitl.Grant{{By: "slack:" + quorum.Assignees[2], At: t0}, {By: hostile(300), At: t0}}
	}
	if hostileInputs {
		reopened.Notice = hostile(5000)
	}
	return shapes
}

// settle returns the settled variants of q.
func settleAll(q *hitl.Question, hostileInputs bool) map[string]*hitl.Question {
	text, by := "fine", "slack:U0ANSWER1"
	if hostileInputs {
		text, by = hostile(10000), "cli:"+hostile(500)
	}
	out := map[string]*hitl.Question{}
	var value any = text
	switch q.ResponseType {
	case hitl.ChoiceResponse:
		value = q.Options[len(q.Options)-1].Value
	case hitl.BooleanResponse:
		value = true
	case hitl.ApprovalResponse:
		value = hitl.Approve
		d := q.Clone()
		out["denied"] = answered(d, by, &hitl.Response{Type: q.ResponseType, Value: hitl.Deny, Text: text})
	}
	out["answered"] = answered(q.Clone(), by, &hitl.Response{Type: q.ResponseType, Value: value, Text: text})
	out["answered_slack"] = answered(q.Clone(), "slack:U0ANSWER1", &hitl.Response{Type: q.ResponseType, Value: value})
	def := q.Clone()
	def.DefaultResponse = &hitl.Response{Type: q.ResponseType, Value: value}
	out["timeout_default"] = timedOut(def)
	nodef := q.Clone()
	nodef.DefaultResponse = nil
	out["timeout_no_default"] = timedOut(nodef)
	out["cancelled"] = cancelled(q.Clone(), by, text)
	return out
}

func TestLimits(t *testing.T) {
	for _, hostileInputs := range []bool{false, true} {
		for name, q := range allShapes(hostileInputs) {
			allowed := append(mentionTokens(q.Assignees...), "@U0ANSWER1")
			prefix := name
			if hostileInputs {
				prefix = "hostile_" + name
			}
			t.Run(prefix+"/pending_message_fits", func(t *testing.T) {
				m := QuestionMessage(q, opts)
				validate(t, m, allowed...)
				if hostileInputs && !m.Truncated {
					t.Error("hostile question not marked truncated")
				}
			})
			t.Run(prefix+"/chunks_fit", func(t *testing.T) {
				for i, c := range FullTextChunks(q) {
					if Len(c) > MaxSectionText || strings.TrimSpace(c) == "" {
						t.Errorf("chunk %d: length %d", i, Len(c))
					}
					v := &validator{allowed: map[string]bool{}}
					v.safe("chunk", c)
					if len(v.errs) > 0 {
						t.Errorf("chunk %d: %v", i, v.errs)
					}
				}
			})
			for _, f := range []struct {
				name string
				fn   func(*hitl.Question, string, string) slack.ModalViewRequest
			}{{"answer", AnswerModal}, {"deny", DenyModal}, {"approve", ApproveModal}, {"edit", EditModal}, {"reassign", ReassignModal}} {
				t.Run(prefix+"/"+f.name+"_modal_fits", func(t *testing.T) {
					validate(t, f.fn(q, "C024BE91L", "1710428966.000100"), allowed...)
				})
			}
			for sname, s := range settleAll(q, hostileInputs) {
				t.Run(prefix+"/"+sname+"_settled_fits", func(t *testing.T) {
					validate(t, SettledMessage(s, opts), allowed...)
				})
			}
		}
	}
}

func TestHomeLimits(t *testing.T) {
	for _, hostileInputs := range []bool{false, true} {
		var waiting, recent []*hitl.Question
		var allowed []string
		for i := range 120 {
			for name, q := range allShapes(hostileInputs) {
				q.ID = fmt.Sprintf("q_%s_%03d", name, i)
				q.CreatedAt = t0.Add(time.Duration(i) * time.Second)
				allowed = append(allowed, mentionTokens(q.Assignees...)...)
				if i%2 == 0 {
					waiting = append(waiting, q)
					continue
				}
				for _, s := range settleAll(q, hostileInputs) {
					recent = append(recent, s)
				}
			}
		}
		allowed = append(allowed, "@U0ANSWER1", "@U0HOMEUSER")
		for _, n := range []int{0, 1, 3, 30, len(waiting)} {
			t.Run(fmt.Sprintf("hostile=%v/%d_waiting_fits", hostileInputs, n), func(t *testing.T) {
				validate(t, HomeView("U0HOMEUSER", waiting[:n], recent[:min(n*3, len(recent))], opts), allowed...)
			})
		}
	}
}

func TestEphemeralSafe(t *testing.T) {
	q := hostileQuestion(question(hitl.Blocking, hitl.TextResponse))
	allowed := append(mentionTokens(q.Assignees...), "@U0ANSWER1")
	texts := []string{
		Refusal("slack:U0ANSWER1 asked q_1 and may not answer it: " + hostile(5000)),
		AlreadySettled(Settlement{Status: hitl.StatusAnswered, By: "cli:" + hostile(300), At: t0}),
		AlreadySettled(Settlement{Status: hitl.StatusCancelled, By: "slack:U0ANSWER1", At: t0}),
	}
	for _, code := range []string{fault.EINVALID, fault.ENOTFOUND, fault.ECONFLICT, fault.EFORBIDDEN, fault.EINTERNAL, "weird"} {
		texts = append(texts, ErrorText(code, hostile(5000)))
	}
	for i, s := range texts {
		v := &validator{allowed: map[string]bool{}}
		for _, a := range allowed {
			v.allowed[a] = true
		}
		v.safe(fmt.Sprint(i), s)
		v.maxLen(fmt.Sprint(i), s, MaxFallbackText)
		if len(v.errs) > 0 {
			t.Errorf("text %d: %v", i, v.errs)
		}
	}
}
