package slackfake

import (
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// Slack's documented limits (Block Kit reference, chat.postMessage, view
// objects). Lengths count characters.
const (
	maxMessageText     = 40000 // chat.postMessage text; more is msg_too_long
	maxMessageBlocks   = 50
	maxViewBlocks      = 100 // modals and Home tabs
	maxSectionText     = 3000
	maxSectionFields   = 10
	maxFieldText       = 2000
	maxHeaderText      = 150
	maxButtonText      = 75
	maxButtonValue     = 2000
	maxURL             = 3000
	maxID              = 255 // action_id, block_id, callback_id, external_id
	maxOptionText      = 75
	maxOptionValue     = 150
	maxSelectOptions   = 100
	maxActionsElements = 25
	maxContextElements = 10
	maxViewTitle       = 24 // modal title, submit and close
	maxPrivateMetadata = 3000
	maxInputLabel      = 2000
	maxInputHint       = 2000
	maxPlaceholder     = 150
	maxMarkdownBlock   = 12000
	maxAltText         = 2000
	maxTextInputLength = 3000
	maxOverflowOptions = 5
	maxChoiceOptions   = 10 // radio_buttons and checkboxes
)

// knownBlocks are block types Slack accepts; validation is deep for the
// ones hitl uses and shallow for the rest.
var knownBlocks = []string{"section", "header", "actions", "context", "input", "divider", "image",
	"rich_text", "markdown", "file", "video", "table", "context_actions", "call"}

// knownElements are interactive or image elements Slack accepts.
var knownElements = []string{"button", "static_select", "multi_static_select", "overflow", "radio_buttons",
	"checkboxes", "plain_text_input", "datepicker", "timepicker", "datetimepicker", "users_select",
	"multi_users_select", "conversations_select", "multi_conversations_select", "channels_select",
	"multi_channels_select", "external_select", "multi_external_select", "number_input",
	"email_text_input", "url_text_input", "rich_text_input", "file_input", "image", "workflow_button",
	"feedback_buttons", "icon_button"}

// validateMessageBlocks checks the blocks argument of chat.* calls. It
// returns "" when they are valid, invalid_blocks_format when they are not a
// JSON array, and invalid_blocks with Slack-style messages otherwise.
func validateMessageBlocks(raw json.RawMessage) (code string, messages []string) {
	var blocks []any
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "invalid_blocks_format", []string{"must be a JSON array of block objects [json-pointer:/blocks]"}
	}
	c := &checker{}
	c.blocks(blocks, "/blocks", maxMessageBlocks)
	if len(c.errs) > 0 {
		return "invalid_blocks", c.errs
	}
	return "", nil
}

// validateView checks a view object for views.open/push/update (modal) or
// views.publish (home). Slack answers invalid_arguments to violations.
func validateView(raw json.RawMessage, wantType string) []string {
	c := &checker{}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil || v == nil {
		c.addf("/view", "must be a JSON object")
		return c.errs
	}
	typ, _ := v["type"].(string)
	if typ != wantType {
		c.addf("/view/type", "must be %q", wantType)
	}
	c.length("/view/private_metadata", v["private_metadata"], 0, maxPrivateMetadata)
	c.length("/view/callback_id", v["callback_id"], 0, maxID)
	c.length("/view/external_id", v["external_id"], 0, maxID)
	blocks, ok := v["blocks"].([]any)
	if !ok {
		c.addf("/view/blocks", "missing required field: blocks")
	}
	if wantType == "modal" {
		c.text(v["title"], "/view/title", maxViewTitle, true, true)
		c.text(v["submit"], "/view/submit", maxViewTitle, true, false)
		c.text(v["close"], "/view/close", maxViewTitle, true, false)
		hasInput := slices.ContainsFunc(blocks, func(b any) bool {
			m, _ := b.(map[string]any)
			return m["type"] == "input"
		})
		if hasInput && v["submit"] == nil {
			c.addf("/view/submit", "submit is required when an input block is within the blocks array")
		}
	}
	c.blocks(blocks, "/view/blocks", maxViewBlocks)
	return c.errs
}

// checker collects violations as Slack phrases them:
// "must be less than 3001 characters [json-pointer:/blocks/0/text/text]".
type checker struct {
	errs []string
}

func (c *checker) addf(ptr, format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...)+" [json-pointer:"+ptr+"]")
}

// length checks an optional string's length; v == nil means absent.
func (c *checker) length(ptr string, v any, minLen, maxLen int) {
	if v == nil {
		return
	}
	s, ok := v.(string)
	if !ok {
		c.addf(ptr, "must be a string")
		return
	}
	n := utf8.RuneCountInString(s)
	switch {
	case n > maxLen:
		c.addf(ptr, "must be less than %d characters", maxLen+1)
	case n < minLen:
		c.addf(ptr, "must be more than %d characters", minLen-1)
	}
}

// text checks a text composition object.
func (c *checker) text(v any, ptr string, maxLen int, plainOnly, required bool) {
	if v == nil {
		if required {
			c.addf(ptr, "missing required field: %s", lastSegment(ptr))
		}
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		c.addf(ptr, "must be a text object")
		return
	}
	switch obj["type"] {
	case "plain_text":
	case "mrkdwn":
		if plainOnly {
			c.addf(ptr+"/type", "must be plain_text")
		}
	default:
		c.addf(ptr+"/type", "must be plain_text or mrkdwn")
	}
	if obj["text"] == nil {
		c.addf(ptr+"/text", "missing required field: text")
		return
	}
	c.length(ptr+"/text", obj["text"], 1, maxLen)
}

// array returns v as a list and checks its size; nil if absent.
func (c *checker) array(v any, ptr string, minLen, maxLen int) []any {
	if v == nil {
		if minLen > 0 {
			c.addf(ptr, "missing required field: %s", lastSegment(ptr))
		}
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		c.addf(ptr, "must be an array")
		return nil
	}
	if len(list) > maxLen {
		c.addf(ptr, "no more than %d items allowed", maxLen)
	}
	if len(list) < minLen {
		c.addf(ptr, "must provide at least %d items", minLen)
	}
	return list
}

// blocks checks a list of blocks and that block_ids are unique in it.
func (c *checker) blocks(blocks []any, ptr string, maxBlocks int) {
	if len(blocks) > maxBlocks {
		c.addf(ptr, "no more than %d items allowed", maxBlocks)
	}
	seen := map[string]bool{}
	for i, b := range blocks {
		p := fmt.Sprintf("%s/%d", ptr, i)
		blk, ok := b.(map[string]any)
		if !ok {
			c.addf(p, "must be a block object")
			continue
		}
		if id, has := blk["block_id"]; has {
			c.length(p+"/block_id", id, 1, maxID)
			if s, _ := id.(string); seen[s] {
				c.addf(p+"/block_id", "duplicate block_id %q", s)
			} else {
				seen[s] = true
			}
		}
		c.block(blk, p)
	}
}

// block checks one block by type.
func (c *checker) block(blk map[string]any, p string) {
	ids := map[string]bool{} // action_ids in this block
	switch typ, _ := blk["type"].(string); typ {
	case "section":
		if blk["text"] == nil && blk["fields"] == nil {
			c.addf(p, "must provide text or fields")
		}
		c.text(blk["text"], p+"/text", maxSectionText, false, false)
		for i, f := range c.array(blk["fields"], p+"/fields", 0, maxSectionFields) {
			c.text(f, fmt.Sprintf("%s/fields/%d", p, i), maxFieldText, false, true)
		}
		if acc := blk["accessory"]; acc != nil {
			c.element(acc, p+"/accessory", ids)
		}
	case "header":
		c.text(blk["text"], p+"/text", maxHeaderText, true, true)
	case "actions":
		for i, el := range c.array(blk["elements"], p+"/elements", 1, maxActionsElements) {
			c.element(el, fmt.Sprintf("%s/elements/%d", p, i), ids)
		}
	case "context":
		for i, el := range c.array(blk["elements"], p+"/elements", 1, maxContextElements) {
			ep := fmt.Sprintf("%s/elements/%d", p, i)
			if m, _ := el.(map[string]any); m != nil && m["type"] == "image" {
				c.element(el, ep, ids)
			} else {
				c.text(el, ep, maxSectionText, false, true)
			}
		}
	case "input":
		c.text(blk["label"], p+"/label", maxInputLabel, true, true)
		c.text(blk["hint"], p+"/hint", maxInputHint, true, false)
		if blk["element"] == nil {
			c.addf(p+"/element", "missing required field: element")
		} else {
			c.element(blk["element"], p+"/element", ids)
		}
	case "image":
		c.length(p+"/image_url", blk["image_url"], 1, maxURL)
		c.length(p+"/alt_text", blk["alt_text"], 1, maxAltText)
		c.text(blk["title"], p+"/title", maxAltText, true, false)
	case "markdown":
		c.length(p+"/text", blk["text"], 1, maxMarkdownBlock)
	default:
		if !slices.Contains(knownBlocks, typ) {
			c.addf(p+"/type", "unsupported block type %q", typ)
		}
	}
}

// element checks an interactive element; ids holds the action_ids already
// used in the block.
func (c *checker) element(v any, p string, ids map[string]bool) {
	el, ok := v.(map[string]any)
	if !ok {
		c.addf(p, "must be an element object")
		return
	}
	if aid, has := el["action_id"]; has {
		c.length(p+"/action_id", aid, 1, maxID)
		if s, _ := aid.(string); ids[s] {
			c.addf(p+"/action_id", "duplicate action_id %q", s)
		} else {
			ids[s] = true
		}
	}
	c.text(el["placeholder"], p+"/placeholder", maxPlaceholder, true, false)
	switch typ, _ := el["type"].(string); typ {
	case "button":
		c.text(el["text"], p+"/text", maxButtonText, true, true)
		c.length(p+"/value", el["value"], 1, maxButtonValue)
		c.length(p+"/url", el["url"], 1, maxURL)
		c.length(p+"/accessibility_label", el["accessibility_label"], 1, maxButtonText)
		if st, has := el["style"]; has && st != "primary" && st != "danger" {
			c.addf(p+"/style", "must be primary or danger")
		}
	case "static_select", "multi_static_select":
		if el["options"] == nil && el["option_groups"] == nil {
			c.addf(p, "must provide options or option_groups")
		}
		c.options(el["options"], p+"/options", 0, maxSelectOptions, true)
		for i, g := range c.array(el["option_groups"], p+"/option_groups", 0, maxSelectOptions) {
			gp := fmt.Sprintf("%s/option_groups/%d", p, i)
			gm, _ := g.(map[string]any)
			c.text(gm["label"], gp+"/label", maxOptionText, true, true)
			c.options(gm["options"], gp+"/options", 1, maxSelectOptions, true)
		}
	case "overflow":
		c.options(el["options"], p+"/options", 1, maxOverflowOptions, true)
	case "radio_buttons", "checkboxes":
		c.options(el["options"], p+"/options", 1, maxChoiceOptions, false)
	case "plain_text_input":
		for _, k := range []string{"min_length", "max_length"} {
			if n, ok := el[k].(float64); ok && (n < 0 || n > maxTextInputLength) {
				c.addf(p+"/"+k, "must be between 0 and %d", maxTextInputLength)
			}
		}
	case "image":
		c.length(p+"/image_url", el["image_url"], 1, maxURL)
		c.length(p+"/alt_text", el["alt_text"], 1, maxAltText)
	default:
		if !slices.Contains(knownElements, typ) {
			c.addf(p+"/type", "unsupported element type %q", typ)
		}
	}
}

// options checks a list of option objects.
func (c *checker) options(v any, p string, minLen, maxLen int, plainOnly bool) {
	for i, o := range c.array(v, p, minLen, maxLen) {
		op := fmt.Sprintf("%s/%d", p, i)
		om, ok := o.(map[string]any)
		if !ok {
			c.addf(op, "must be an option object")
			continue
		}
		c.text(om["text"], op+"/text", maxOptionText, plainOnly, true)
		c.text(om["description"], op+"/description", maxOptionText, true, false)
		if om["value"] == nil {
			c.addf(op+"/value", "missing required field: value")
		}
		c.length(op+"/value", om["value"], 1, maxOptionValue)
		c.length(op+"/url", om["url"], 1, maxURL)
	}
}

func lastSegment(ptr string) string {
	for i := len(ptr) - 1; i >= 0; i-- {
		if ptr[i] == '/' {
			return ptr[i+1:]
		}
	}
	return ptr
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// isEmptyArray reports whether raw is the JSON array [].
func isEmptyArray(raw json.RawMessage) bool {
	var list []any
	return json.Unmarshal(raw, &list) == nil && len(list) == 0
}
