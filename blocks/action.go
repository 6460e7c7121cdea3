package blocks

import (
	"strconv"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// Verb is what a button or a select asks the bot to do.
type Verb string

// Verbs, carried in action ids as "hitl/<verb>".
const (
	VerbApprove    Verb = "approve"     // grant an approval at once
	VerbDeny       Verb = "deny"        // open the deny modal (reason)
	VerbApproveMsg Verb = "approve_msg" // open the approve modal (message)
	VerbYes        Verb = "yes"         // answer a boolean question yes
	VerbNo         Verb = "no"          // answer a boolean question no
	VerbChoose     Verb = "choose"      // pick an option by button
	VerbSelect     Verb = "select"      // pick an option in a static_select
	VerbAnswer     Verb = "answer"      // open the answer modal
	VerbReassign   Verb = "reassign"    // open the reassign modal (a user picker)
	VerbReply      Verb = "reply"       // open the reply modal (text for the agent)
)

// Action ids. A choice button's action id is ActionChoose + "/<index>"
// (ChooseActionID), because action ids must be unique within a block.
const (
	ActionPrefix     = "hitl/"
	ActionApprove    = ActionPrefix + string(VerbApprove)
	ActionDeny       = ActionPrefix + string(VerbDeny)
	ActionApproveMsg = ActionPrefix + string(VerbApproveMsg)
	ActionYes        = ActionPrefix + string(VerbYes)
	ActionNo         = ActionPrefix + string(VerbNo)
	ActionChoose     = ActionPrefix + string(VerbChoose)
	ActionSelect     = ActionPrefix + string(VerbSelect)
	ActionAnswer     = ActionPrefix + string(VerbAnswer)
	ActionReassign   = ActionPrefix + string(VerbReassign)
	ActionReply      = ActionPrefix + string(VerbReply)
)

const blockIDPrefix = "q:"

var verbs = map[Verb]bool{
	VerbApprove: true, VerbDeny: true, VerbApproveMsg: true, VerbYes: true,
	VerbNo: true, VerbChoose: true, VerbSelect: true, VerbAnswer: true,
	VerbApproveAlways: true, VerbEdit: true, VerbReassign: true, VerbReply: true,
}

// Action is a parsed block action: what to do, to which question, and for
// choose and select the option's index in Question.Options (-1 otherwise).
type Action struct {
	Verb        Verb
	QuestionID  string
	OptionIndex int
}

// ActionID returns the action id of verb: "hitl/<verb>".
func ActionID(v Verb) string { return ActionPrefix + string(v) }

// ChooseActionID returns the action id of the button for option i.
func ChooseActionID(i int) string { return ActionChoose + "/" + strconv.Itoa(i) }

// BlockID returns the block id that carries a question id: "q:<id>".
func BlockID(questionID string) string { return blockIDPrefix + questionID }

// ActionIDs lists every action id this package renders, for a bot that
// registers handlers by exact action id.
func ActionIDs() []string {
	ids := []string{ActionApprove, ActionDeny, ActionApproveMsg, ActionYes, ActionNo, ActionSelect, ActionAnswer,
		ActionApproveAlways, ActionEdit, ActionReassign, ActionReply}
	for i := range MaxButtonChoices {
		ids = append(ids, ChooseActionID(i))
	}
	return ids
}

// ParseAction parses a block action: its action id, the block id of the
// block it is in, and its value (a button's value, or a select's selected
// option value). Anything malformed is an EINVALID *fault.Error.
func ParseAction(actionID, blockID, value string) (Action, error) {
	if len(actionID) > MaxActionID {
		return Action{}, fault.Errorf(fault.EINVALID, "action id is longer than %d characters", MaxActionID)
	}
	rest, ok := strings.CutPrefix(actionID, ActionPrefix)
	if !ok {
		return Action{}, fault.Errorf(fault.EINVALID, "action %s is not a hitl action", quote(actionID))
	}
	name, arg, hasArg := strings.Cut(rest, "/")
	v := Verb(name)
	if !verbs[v] {
		return Action{}, fault.Errorf(fault.EINVALID, "unknown action %s", quote(actionID))
	}
	if hasArg && v != VerbChoose {
		return Action{}, fault.Errorf(fault.EINVALID, "action %s takes no argument", quote(actionID))
	}
	id, err := parseBlockID(blockID)
	if err != nil {
		return Action{}, err
	}
	a := Action{Verb: v, QuestionID: id, OptionIndex: -1}
	switch v {
	case VerbChoose:
		a.OptionIndex, err = chosenIndex(arg, hasArg, value)
	case VerbSelect:
		a.OptionIndex, err = parseIndex(value)
	}
	if err != nil {
		return Action{}, err
	}
	return a, nil
}

// chosenIndex reads a choice button's option index from its action id
// suffix and its value; when both are there they must agree.
func chosenIndex(arg string, hasArg bool, value string) (int, error) {
	switch {
	case hasArg && value != "":
		i, err := parseIndex(arg)
		if err != nil {
			return -1, err
		}
		if j, err := parseIndex(value); err != nil || j != i {
			return -1, fault.Errorf(fault.EINVALID, "option %s does not match the button's option %d", quote(value), i)
		}
		return i, nil
	case hasArg:
		return parseIndex(arg)
	default:
		return parseIndex(value)
	}
}

// parseIndex parses an option index: a decimal 0..hitl.MaxOptions-1
// without sign, spaces or leading zeros.
func parseIndex(s string) (int, error) {
	bad := s == "" || len(s) > 3 || (len(s) > 1 && s[0] == '0')
	for i := 0; i < len(s) && !bad; i++ {
		bad = s[i] < '0' || s[i] > '9'
	}
	if bad {
		return -1, fault.Errorf(fault.EINVALID, "option %s is not an option number", quote(s))
	}
	i, _ := strconv.Atoi(s)
	if i >= hitl.MaxOptions {
		return -1, fault.Errorf(fault.EINVALID, "option %d is out of range", i)
	}
	return i, nil
}

func parseBlockID(blockID string) (string, error) {
	id, ok := strings.CutPrefix(blockID, blockIDPrefix)
	if !ok || !validQuestionID(id) {
		return "", fault.Errorf(fault.EINVALID, "block %s does not name a question", quote(blockID))
	}
	return id, nil
}

// validQuestionID accepts 1..MaxQuestionIDLen printable ASCII characters
// other than space: what fits a block id and what hitl generates.
func validQuestionID(id string) bool {
	if id == "" || len(id) > MaxQuestionIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

// quote shows untrusted input in an error message, short.
func quote(s string) string { return strconv.Quote(Truncate(s, 40, ellipsis)) }
