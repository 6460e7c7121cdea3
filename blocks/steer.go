package blocks

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/slack-go/slack"
)

// Steering modals: callback ids and input block ids.
const (
	CallbackEscalate = "hitl/escalate" // EscalateModal
	CallbackRedirect = "hitl/redirect" // RedirectModal

	BlockModel       = "model"       // EscalateModal's model select
	BlockWhy         = "why"         // EscalateModal's reason
	BlockInstruction = "instruction" // RedirectModal's instruction
)

// runMetadata is a steering modal's private_metadata: the run, and the
// live message it was opened from.
type runMetadata struct {
	R  string `json:"r"`
	C  string `json:"c,omitempty"`
	TS string `json:"ts,omitempty"`
}

// EscalateModal chooses the model to escalate run to (models, the first
// selected) and an optional reason.
func EscalateModal(runID string, models []string, channel, ts string) slack.ModalViewRequest {
	if len(models) == 0 {
		models = []string{"opus"}
	}
	n := min(len(models), MaxSelectOptions)
	opts := make([]*slack.OptionBlockObject, 0, n)
	for _, m := range models[:n] {
		v := Truncate(m, MaxOptionValue, "")
		opts = append(opts, slack.NewOptionBlockObject(v, plainText(plain(m, MaxOptionText, "model")), nil))
	}
	sel := slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, plainText("Model"), InputActionID, opts...)
	sel.InitialOption = opts[0]
	model := slack.NewInputBlock(BlockModel, plainText("Model"), nil, sel)
	why := slack.NewInputBlock(BlockWhy, plainText("Reason (optional)"),
		plainText("The agent receives it with the new model."), textInput("Stuck on complex type inference", true))
	why.Optional = true
	return steerModal(runID, channel, ts, CallbackEscalate, "Escalate run", "Escalate",
		"Switch run "+runID+" to a more capable model from its next iteration.", model, why)
}

// RedirectModal asks for the instruction to hand run at its next
// iteration.
func RedirectModal(runID, channel, ts string) slack.ModalViewRequest {
	in := textInput("Stop refactoring; fix the failing test first", true)
	block := slack.NewInputBlock(BlockInstruction, plainText("New instruction"),
		plainText("The agent receives it at its next iteration."), in)
	return steerModal(runID, channel, ts, CallbackRedirect, "Redirect run", "Redirect",
		"Give run "+runID+" a new instruction.", block)
}

func steerModal(runID, channel, ts, callbackID, title, submit, intro string, inputs ...slack.Block) slack.ModalViewRequest {
	text, _ := escapeCut(intro, MaxSectionText, ellipsis)
	bs := append([]slack.Block{section(text)}, inputs...)
	meta, _ := json.Marshal(runMetadata{R: runID, C: channel, TS: ts})
	if Len(string(meta)) > MaxPrivateMetadata {
		meta, _ = json.Marshal(runMetadata{R: runID})
	}
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		Title:           plainText(Truncate(title, MaxModalTitle, "")),
		Submit:          plainText(Truncate(submit, MaxModalButton, "")),
		Close:           plainText("Cancel"),
		CallbackID:      callbackID,
		PrivateMetadata: string(meta),
		Blocks:          slack.Blocks{BlockSet: bs},
	}
}

// SteerSubmission is a parsed submission of a steering modal: the command
// and its payload, and the block to show an error under.
type SteerSubmission struct {
	Command steer.Command
	RunID   string
	Payload steer.ControlPayload
	// ErrorBlock is the input block that shows a refusal.
	ErrorBlock string
}

// ParseSteerSubmission parses a view_submission of EscalateModal or
// RedirectModal.
func ParseSteerSubmission(callbackID, privateMetadata string, values map[string]map[string]slack.BlockAction) (SteerSubmission, error) {
	var s SteerSubmission
	switch callbackID {
	case CallbackEscalate:
		s.Command, s.ErrorBlock = steer.CommandEscalate, BlockModel
	case CallbackRedirect:
		s.Command, s.ErrorBlock = steer.CommandRedirect, BlockInstruction
	default:
		return s, fault.Errorf(fault.EINVALID, "unknown view %s", quote(callbackID))
	}
	var m runMetadata
	if len(privateMetadata) > 4*MaxPrivateMetadata || json.Unmarshal([]byte(privateMetadata), &m) != nil || steer.ValidateRunID(m.R) != nil {
		return s, fault.Errorf(fault.EINVALID, "the view's metadata names no run")
	}
	s.RunID = m.R
	text := func(block string) string { return strings.TrimSpace(values[block][InputActionID].Value) }
	switch s.Command {
	case steer.CommandEscalate:
		s.Payload.Model = values[BlockModel][InputActionID].SelectedOption.Value
		s.Payload.Reason = text(BlockWhy)
		if s.Payload.Model == "" {
			return s, fault.Errorf(fault.EINVALID, "choose a model")
		}
	case steer.CommandRedirect:
		s.Payload.Instruction = text(BlockInstruction)
		if s.Payload.Instruction == "" {
			return s, fault.Errorf(fault.EINVALID, "the instruction is empty")
		}
	}
	if !utf8.ValidString(s.Payload.Reason + s.Payload.Instruction) {
		return s, fault.Errorf(fault.EINVALID, "the text is not valid")
	}
	return s, nil
}

// ControlText tells the person who steered a run how it went, from the
// RESULT: "✅ Loop paused at iteration 4 (run `loop-1`)", or the failure in
// plain words ("⚠️ Run loop-1 is not paused: it is running").
func ControlText(m steer.ControlMessage) string {
	msg, _ := escapeCut(oneLine(m.Payload.Message), 500, ellipsis)
	run, _ := escapeCut(oneLine(m.Target.RunID), 150, ellipsis)
	if code, failed := m.Failed(); failed {
		switch code {
		case steer.CodeForbidden:
			return "🚫 You're not allowed to steer runs: " + withStop(msg)
		case steer.CodeDuplicate:
			return "⏳ " + withStop(msg)
		}
		if msg == "" {
			msg = string(m.Command) + " failed (" + code + ")"
		}
		return "⚠️ " + withStop(msg)
	}
	if m.Type == steer.MessageAck {
		return "📨 `" + string(m.Command) + "` received for run `" + run + "`…"
	}
	text := msg
	if text == "" {
		text = "Done: " + string(m.Command)
	}
	if m.Payload.NewModel != "" && m.Payload.PreviousModel != "" {
		text += " (was " + escapeShort(m.Payload.PreviousModel) + ")"
	}
	return "✅ " + text + " (run `" + run + "`)"
}

func escapeShort(s string) string {
	out, _ := escapeCut(oneLine(s), 100, ellipsis)
	return out
}

func withStop(s string) string {
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, ellipsis) {
		return s
	}
	return s + "."
}
