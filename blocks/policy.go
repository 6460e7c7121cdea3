package blocks

import (
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/slack-go/slack"
)

// ActionRevokeRule is the Revoke button of a learned rule in PolicyMessage;
// its block id is "rule:<id>" and its value the rule id.
const ActionRevokeRule = ActionPrefix + "rule_revoke"

const ruleBlockPrefix = "rule:"

// MaxListedRules keeps PolicyMessage within a message's 50 blocks: the
// page of learned rules the bot asks for.
const MaxListedRules = 45

// PolicyMessage lists the rules people taught hitl with "Approve & always
// allow" (a first page; more says there are others): what each allows,
// who added it, when, until when, and a Revoke button.
func PolicyMessage(learned []*hitl.LearnedRule, more bool) Message {
	n := itoa(len(learned))
	if more {
		n += "+"
	}
	head := "*Learned rules (" + n + ")* — added with “Approve &amp; always allow”."
	if len(learned) == 0 {
		head = "*No learned rules.* “Approve &amp; always allow” on an approval adds one."
	}
	bs := []slack.Block{section(head)}
	for i, r := range learned {
		if i == MaxListedRules {
			more = true
			break
		}
		bs = append(bs, ruleBlock(r))
	}
	if more {
		bs = append(bs, contextBlock(mrkdwn("…and more: `hitl policy rules` lists them all.")))
	}
	return Message{Text: "Learned rules: " + n, Blocks: bs}
}

func ruleBlock(r *hitl.LearnedRule) slack.Block {
	id, _ := escapeCut(oneLine(r.ID), 100, ellipsis)
	text := "`" + strings.ReplaceAll(id, "`", "'") + "` allows " + ruleWords(r, 2000, true)
	if r.CreatedBy != "" {
		text += "\nadded by " + actor(r.CreatedBy)
		if !r.CreatedAt.IsZero() {
			text += " " + date(r.CreatedAt)
		}
	}
	if !r.ExpiresAt.IsZero() {
		text += " · expires " + date(r.ExpiresAt)
	}
	s := section(Truncate(text, MaxSectionText, ellipsis))
	if RuleIDValid(r.ID) {
		b := button(ActionRevokeRule, r.ID, "Revoke", slack.StyleDanger)
		b.Confirm = confirm("Revoke this rule?", "From now on hitl asks again for: "+ruleWords(r, 250, false),
			"Revoke", "Keep it", slack.StyleDanger)
		s.Accessory = slack.NewAccessory(b)
		s.BlockID = ruleBlockPrefix + r.ID
	}
	return s
}

// RuleIDValid reports whether a rule id fits a block id and a button value.
func RuleIDValid(id string) bool { return validQuestionID(id) }

// ParseRevoke reads the rule id of a Revoke click.
func ParseRevoke(blockID, value string) (string, error) {
	id, ok := strings.CutPrefix(blockID, ruleBlockPrefix)
	if !ok || !RuleIDValid(id) || (value != "" && value != id) {
		return "", fault.Errorf(fault.EINVALID, "block %s does not name a rule", quote(blockID))
	}
	return id, nil
}

// RevokedText tells who revoked a rule what it was.
func RevokedText(r *hitl.LearnedRule) string {
	id, _ := escapeCut(oneLine(r.ID), 100, ellipsis)
	return "🗑 Revoked `" + id + "`: hitl asks again for " + ruleWords(r, 2000, true) + "."
}
