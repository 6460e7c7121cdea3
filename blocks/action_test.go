package blocks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/slack-go/slack"
)

func TestParseAction(t *testing.T) {
	ok := []struct {
		name                     string
		actionID, blockID, value string
		want                     Action
	}{
		{"approve", "hitl/approve", "q:q_1", "", Action{VerbApprove, "q_1", -1}},
		{"approve_ignores_value", "hitl/approve", "q:q_1", "whatever", Action{VerbApprove, "q_1", -1}},
		{"deny", "hitl/deny", "q:q_1", "", Action{VerbDeny, "q_1", -1}},
		{"approve_msg", "hitl/approve_msg", "q:q_1", "", Action{VerbApproveMsg, "q_1", -1}},
		{"yes", "hitl/yes", "q:q_1", "", Action{VerbYes, "q_1", -1}},
		{"no", "hitl/no", "q:q_1", "", Action{VerbNo, "q_1", -1}},
		{"answer", "hitl/answer", "q:q_1", "", Action{VerbAnswer, "q_1", -1}},
		{"choose_suffix_and_value", "hitl/choose/2", "q:q_1", "2", Action{VerbChoose, "q_1", 2}},
		{"choose_suffix_only", "hitl/choose/4", "q:q_1", "", Action{VerbChoose, "q_1", 4}},
		{"choose_value_only", "hitl/choose", "q:q_1", "0", Action{VerbChoose, "q_1", 0}},
		{"select", "hitl/select", "q:q_1", "99", Action{VerbSelect, "q_1", 99}},
		{"id_with_colon", "hitl/yes", "q:a:b", "", Action{VerbYes, "a:b", -1}},
	}
	for _, c := range ok {
		t.Run(c.name+"_parses", func(t *testing.T) {
			got, err := ParseAction(c.actionID, c.blockID, c.value)
			if err != nil || got != c.want {
				t.Fatalf("ParseAction(%q, %q, %q) = %+v, %v; want %+v", c.actionID, c.blockID, c.value, got, err, c.want)
			}
		})
	}
	bad := []struct{ name, actionID, blockID, value string }{
		{"empty", "", "", ""},
		{"foreign_action", "other/approve", "q:q_1", ""},
		{"no_verb", "hitl/", "q:q_1", ""},
		{"unknown_verb", "hitl/launch", "q:q_1", ""},
		{"case_matters", "hitl/Approve", "q:q_1", ""},
		{"argument_on_approve", "hitl/approve/1", "q:q_1", ""},
		{"no_block", "hitl/approve", "", ""},
		{"foreign_block", "hitl/approve", "x:q_1", ""},
		{"empty_question", "hitl/approve", "q:", ""},
		{"space_in_question", "hitl/approve", "q:q 1", ""},
		{"control_in_question", "hitl/approve", "q:q\x001", ""},
		{"unicode_in_question", "hitl/approve", "q:qé", ""},
		{"long_question", "hitl/approve", "q:" + strings.Repeat("a", 254), ""},
		{"long_action", "hitl/approve" + strings.Repeat("a", 250), "q:q_1", ""},
		{"choose_without_index", "hitl/choose", "q:q_1", ""},
		{"choose_mismatch", "hitl/choose/1", "q:q_1", "2"},
		{"choose_bad_suffix", "hitl/choose/x", "q:q_1", ""},
		{"choose_two_suffixes", "hitl/choose/1/2", "q:q_1", ""},
		{"select_empty", "hitl/select", "q:q_1", ""},
		{"select_negative", "hitl/select", "q:q_1", "-1"},
		{"select_plus", "hitl/select", "q:q_1", "+1"},
		{"select_leading_zero", "hitl/select", "q:q_1", "01"},
		{"select_space", "hitl/select", "q:q_1", " 1"},
		{"select_out_of_range", "hitl/select", "q:q_1", "100"},
		{"select_huge", "hitl/select", "q:q_1", "99999999999999999999"},
		{"select_label", "hitl/select", "q:q_1", "Postgres"},
	}
	for _, c := range bad {
		t.Run(c.name+"_is_invalid", func(t *testing.T) {
			a, err := ParseAction(c.actionID, c.blockID, c.value)
			if err == nil {
				t.Fatalf("ParseAction(%q, %q, %q) = %+v, want an error", c.actionID, c.blockID, c.value, a)
			}
			if fault.Code(err) != fault.EINVALID {
				t.Errorf("code %q, want invalid", fault.Code(err))
			}
		})
	}
}

func TestActionIDsAreShortAndParse(t *testing.T) {
	for _, id := range ActionIDs() {
		value := ""
		if strings.HasPrefix(id, ActionChoose) || id == ActionSelect {
			value = "0"
			if id != ActionSelect {
				value = id[len(ActionChoose)+1:]
			}
		}
		if _, err := ParseAction(id, BlockID("q_1"), value); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

// TestRenderedInputsParse clicks every input of every rendered message and
// Home tab: each must parse back to its question and the right option.
func TestRenderedInputsParse(t *testing.T) {
	for name, q := range allShapes(false) {
		t.Run(name+"_inputs_parse", func(t *testing.T) {
			for _, bs := range [][]slack.Block{QuestionMessage(q, opts).Blocks, HomeView("U0HOMEUSER", []*hitl.Question{q}, nil, opts).Blocks.BlockSet} {
				n := 0
				for _, b := range bs {
					ab, ok := b.(*slack.ActionBlock)
					if !ok {
						continue
					}
					for _, e := range ab.Elements.ElementSet {
						switch e := e.(type) {
						case *slack.ButtonBlockElement:
							n++
							a, err := ParseAction(e.ActionID, ab.BlockID, e.Value)
							if err != nil || a.QuestionID != q.ID {
								t.Errorf("button %s: %+v, %v", e.ActionID, a, err)
							}
							if a.Verb == VerbChoose && q.Options[a.OptionIndex].Label != e.Text.Text {
								t.Errorf("button %q picks option %d", e.Text.Text, a.OptionIndex)
							}
						case *slack.SelectBlockElement:
							for i, o := range e.Options {
								n++
								a, err := ParseAction(e.ActionID, ab.BlockID, o.Value)
								if err != nil || a.Verb != VerbSelect || a.OptionIndex != i || a.QuestionID != q.ID {
									t.Errorf("option %d: %+v, %v", i, a, err)
								}
							}
						}
					}
				}
				if n == 0 {
					t.Error("no inputs")
				}
			}
		})
	}
}

func TestPendingOnlyHasInputs(t *testing.T) {
	q := question(hitl.Blocking, hitl.BooleanResponse)
	q.ID = "bad id with spaces"
	for _, b := range QuestionMessage(q, opts).Blocks {
		if b.BlockType() == slack.MBTAction {
			t.Error("a question whose id cannot be a block id got inputs")
		}
	}
}

func values(block, v string) map[string]map[string]slack.BlockAction {
	return map[string]map[string]slack.BlockAction{block: {InputActionID: {Value: v}}}
}

func TestParseSubmission(t *testing.T) {
	meta := PrivateMetadata("q_1", "C024BE91L", "1710428966.000100")
	if meta != `{"q":"q_1","c":"C024BE91L","ts":"1710428966.000100"}` {
		t.Fatalf("metadata %s", meta)
	}
	ok := []struct {
		name, callback, meta string
		values               map[string]map[string]slack.BlockAction
		want                 Submission
	}{
		{"answer", CallbackAnswer, meta, values(BlockAnswer, "Postgres"), Submission{Kind: SubmitAnswer, QuestionID: "q_1", Channel: "C024BE91L", MessageTS: "1710428966.000100", Value: "Postgres"}},
		{"answer_keeps_spaces", CallbackAnswer, meta, values(BlockAnswer, " pass word "), Submission{Kind: SubmitAnswer, QuestionID: "q_1", Channel: "C024BE91L", MessageTS: "1710428966.000100", Value: " pass word "}},
		{"answer_from_home", CallbackAnswer, PrivateMetadata("q_1", "", ""), values(BlockAnswer, "x"), Submission{Kind: SubmitAnswer, QuestionID: "q_1", Channel: "", MessageTS: "", Value: "x"}},
		{"answer_without_c_ts", CallbackAnswer, `{"q":"q_1"}`, values(BlockAnswer, "x"), Submission{Kind: SubmitAnswer, QuestionID: "q_1", Channel: "", MessageTS: "", Value: "x"}},
		{"deny_with_reason", CallbackDeny, meta, values(BlockReason, "not now"), Submission{Kind: SubmitDeny, QuestionID: "q_1", Channel: "C024BE91L", MessageTS: "1710428966.000100", Value: "not now"}},
		{"deny_without_reason", CallbackDeny, meta, nil, Submission{Kind: SubmitDeny, QuestionID: "q_1", Channel: "C024BE91L", MessageTS: "1710428966.000100", Value: ""}},
		{"approve_with_message", CallbackApprove, meta, values(BlockMessage, "go"), Submission{Kind: SubmitApprove, QuestionID: "q_1", Channel: "C024BE91L", MessageTS: "1710428966.000100", Value: "go"}},
		{"edit_with_new_text", CallbackEdit, meta, map[string]map[string]slack.BlockAction{BlockEdited: {InputActionID: {Value: "/w/a.md"}}, BlockEditedContent: {InputActionID: {Value: "two\n"}}},
			Submission{Kind: SubmitEdit, QuestionID: "q_1", Channel: "C024BE91L", MessageTS: "1710428966.000100", Value: "/w/a.md", Content: "two\n"}},
		{"approve_ignores_other_blocks", CallbackApprove, meta, values(BlockReason, "x"), Submission{Kind: SubmitApprove, QuestionID: "q_1", Channel: "C024BE91L", MessageTS: "1710428966.000100", Value: ""}},
	}
	for _, c := range ok {
		t.Run(c.name+"_parses", func(t *testing.T) {
			got, err := ParseSubmission(c.callback, c.meta, c.values)
			if err != nil || got != c.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
	bad := []struct {
		name, callback, meta string
		values               map[string]map[string]slack.BlockAction
	}{
		{"unknown_callback", "hitl/other", meta, values(BlockAnswer, "x")},
		{"empty_callback", "", meta, values(BlockAnswer, "x")},
		{"empty_metadata", CallbackAnswer, "", values(BlockAnswer, "x")},
		{"garbage_metadata", CallbackAnswer, "{not json", values(BlockAnswer, "x")},
		{"metadata_array", CallbackAnswer, `["q_1"]`, values(BlockAnswer, "x")},
		{"metadata_number_q", CallbackAnswer, `{"q":1}`, values(BlockAnswer, "x")},
		{"metadata_no_q", CallbackAnswer, `{"c":"C1","ts":"1.2"}`, values(BlockAnswer, "x")},
		{"metadata_bad_q", CallbackAnswer, `{"q":"q 1"}`, values(BlockAnswer, "x")},
		{"metadata_bad_channel", CallbackAnswer, `{"q":"q_1","c":"C\n1"}`, values(BlockAnswer, "x")},
		{"metadata_huge", CallbackAnswer, `{"q":"q_1","c":"` + strings.Repeat("C", 20000) + `"}`, values(BlockAnswer, "x")},
		{"answer_missing", CallbackAnswer, meta, nil},
		{"answer_blank", CallbackAnswer, meta, values(BlockAnswer, " \n ")},
		{"answer_wrong_block", CallbackAnswer, meta, values(BlockReason, "x")},
		{"answer_too_long", CallbackAnswer, meta, values(BlockAnswer, strings.Repeat("x", hitl.MaxAnswerLen+1))},
		{"answer_invalid_utf8", CallbackAnswer, meta, values(BlockAnswer, "\xff")},
	}
	for _, c := range bad {
		t.Run(c.name+"_is_invalid", func(t *testing.T) {
			s, err := ParseSubmission(c.callback, c.meta, c.values)
			if err == nil {
				t.Fatalf("got %+v, want an error", s)
			}
			if fault.Code(err) != fault.EINVALID {
				t.Errorf("code %q, want invalid", fault.Code(err))
			}
		})
	}
	t.Run("error_never_echoes_the_value", func(t *testing.T) {
		_, err := ParseSubmission(CallbackAnswer, meta, values(BlockAnswer, "\xffhunter2"))
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error %v", err)
		}
	})
}

func TestModalsRoundTrip(t *testing.T) {
	q := question(hitl.Approval, hitl.ApprovalResponse)
	for _, m := range []slack.ModalViewRequest{AnswerModal(q, "C1", "1.2"), DenyModal(q, "C1", "1.2"), ApproveModal(q, "C1", "1.2")} {
		t.Run(m.CallbackID+"_submission_parses", func(t *testing.T) {
			in := m.Blocks.BlockSet[len(m.Blocks.BlockSet)-1].(*slack.InputBlock)
			s, err := ParseSubmission(m.CallbackID, m.PrivateMetadata, values(in.BlockID, "typed"))
			if err != nil || s.QuestionID != q.ID || s.Channel != "C1" || s.MessageTS != "1.2" || s.Value != "typed" {
				t.Errorf("got %+v, %v", s, err)
			}
		})
	}
}

func TestSensitiveValueNeverRendered(t *testing.T) {
	const secret = "hunter2-s3cr3t"
	q := question(hitl.Blocking, hitl.TextResponse)
	q.InputType, q.Sensitive = hitl.PasswordInput, true
	q = answered(q, "slack:U0ANSWER1", &hitl.Response{Type: hitl.TextResponse, Value: secret, Text: secret})
	outs := []any{SettledMessage(q, opts), QuestionMessage(q, opts), HomeView("U1", nil, []*hitl.Question{q}, opts),
		AnswerModal(q, "C", "1"), AlreadySettled(SettlementOf(q))}
	for i, o := range outs {
		b, _ := json.Marshal(o)
		if strings.Contains(string(b), "hunter2") {
			t.Errorf("output %d shows the sensitive value: %s", i, b)
		}
	}
}

func TestSettlementFromError(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want Status
	}{
		{"answered", &fault.Error{Code: fault.ECONFLICT, Message: "question q was already answered by slack:U1 at 2025-03-14T15:09:26Z", By: "slack:U1", At: "2025-03-14T15:09:26Z"}, hitl.StatusAnswered},
		{"timed_out", &fault.Error{Code: fault.ECONFLICT, Message: "question q timed out at x", By: auth.ActorSystem, At: "2025-03-14T15:09:26Z"}, hitl.StatusTimeout},
		{"cancelled", &fault.Error{Code: fault.ECONFLICT, Message: "question q was cancelled by api:x at y", By: "api:x"}, hitl.StatusCancelled},
	}
	for _, c := range cases {
		t.Run(c.name+"_is_read", func(t *testing.T) {
			s, ok := SettlementFromError(c.err)
			if !ok || s.Status != c.want {
				t.Errorf("got %+v, %v", s, ok)
			}
		})
	}
	t.Run("other_errors_are_not_settlements", func(t *testing.T) {
		for _, err := range []error{nil, fault.Errorf(fault.EINVALID, "x"), &fault.Error{Code: fault.ECONFLICT, Message: "bare"}} {
			if _, ok := SettlementFromError(err); ok {
				t.Errorf("%v read as a settlement", err)
			}
		}
	})
}

// Status shortens test tables.
type Status = hitl.Status

func FuzzParseAction(f *testing.F) {
	for _, s := range []string{"hitl/approve", "hitl/choose/3", "hitl/select", "hitl/", "x"} {
		f.Add(s, "q:q_1", "3")
	}
	f.Fuzz(func(t *testing.T, actionID, blockID, value string) {
		a, err := ParseAction(actionID, blockID, value)
		if err != nil {
			if fault.Code(err) != fault.EINVALID {
				t.Fatalf("code %q", fault.Code(err))
			}
			return
		}
		if !verbs[a.Verb] || !validQuestionID(a.QuestionID) || "q:"+a.QuestionID != blockID {
			t.Fatalf("accepted %q %q %q as %+v", actionID, blockID, value, a)
		}
		if (a.Verb == VerbChoose || a.Verb == VerbSelect) != (a.OptionIndex >= 0) || a.OptionIndex >= hitl.MaxOptions {
			t.Fatalf("bad index in %+v", a)
		}
	})
}

func FuzzParseSubmission(f *testing.F) {
	f.Add(CallbackAnswer, `{"q":"q_1","c":"C1","ts":"1.2"}`, "x")
	f.Add(CallbackDeny, `{"q":""}`, "")
	f.Fuzz(func(t *testing.T, callback, meta, value string) {
		s, err := ParseSubmission(callback, meta, values(BlockAnswer, value))
		if err != nil {
			if strings.Contains(err.Error(), value) && len(value) > 3 && !strings.Contains(callback+meta, value) {
				t.Fatalf("error %v echoes the value", err)
			}
			return
		}
		if !validQuestionID(s.QuestionID) || (s.Kind == SubmitAnswer && strings.TrimSpace(s.Value) == "") {
			t.Fatalf("accepted %+v", s)
		}
	})
}

func FuzzEscapeCut(f *testing.F) {
	f.Add("<!channel> & <@U1> 🎉", 10)
	f.Add(hostile(300), 75)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n%4000 + 1
		if n < 0 {
			n = -n
		}
		out, _ := escapeCut(s, n, MarkerThread)
		if Len(out) > n {
			t.Fatalf("Len %d > %d", Len(out), n)
		}
		v := &validator{allowed: map[string]bool{}}
		v.safe("out", out)
		if len(v.errs) > 0 {
			t.Fatalf("%q: %v", out, v.errs)
		}
		if tr := Truncate(s, n, "…"); Len(tr) > n {
			t.Fatalf("Truncate Len %d > %d", Len(tr), n)
		}
	})
}
