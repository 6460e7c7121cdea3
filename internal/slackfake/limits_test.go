package slackfake

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

type obj = map[string]any

func plain(s string) obj   { return obj{"type": "plain_text", "text": s} }
func mrkdwn(s string) obj  { return obj{"type": "mrkdwn", "text": s} }
func section(s string) obj { return obj{"type": "section", "text": mrkdwn(s)} }
func x(n int) string       { return strings.Repeat("x", n) }

func button(actionID, text, value string) obj {
	return obj{"type": "button", "action_id": actionID, "text": plain(text), "value": value}
}

func option(text, value string) obj { return obj{"text": plain(text), "value": value} }

func options(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = option(fmt.Sprint("o", i), fmt.Sprint("v", i))
	}
	return out
}

func sections(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = section("hi")
	}
	return out
}

func buttons(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = button(fmt.Sprint("a", i), "b", "v")
	}
	return out
}

func texts(n, size int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = mrkdwn(x(size))
	}
	return out
}

func actions(els ...any) obj { return obj{"type": "actions", "elements": els} }

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func TestValidateMessageBlocks(t *testing.T) {
	cases := []struct {
		name   string
		blocks any
		code   string // "" when valid
	}{
		{"simple", []any{section("hello")}, ""},
		{"not an array", obj{"type": "section"}, "invalid_blocks_format"},
		{"50 blocks", sections(50), ""},
		{"51 blocks", sections(51), "invalid_blocks"},
		{"section text 3000", []any{section(x(3000))}, ""},
		{"section text 3001", []any{section(x(3001))}, "invalid_blocks"},
		{"section text counts characters", []any{section(strings.Repeat("é", 3000))}, ""},
		{"section empty text", []any{section("")}, "invalid_blocks"},
		{"section without text or fields", []any{obj{"type": "section"}}, "invalid_blocks"},
		{"10 fields", []any{obj{"type": "section", "fields": texts(10, 2000)}}, ""},
		{"11 fields", []any{obj{"type": "section", "fields": texts(11, 1)}}, "invalid_blocks"},
		{"field 2001", []any{obj{"type": "section", "fields": texts(1, 2001)}}, "invalid_blocks"},
		{"header 150", []any{obj{"type": "header", "text": plain(x(150))}}, ""},
		{"header 151", []any{obj{"type": "header", "text": plain(x(151))}}, "invalid_blocks"},
		{"header mrkdwn", []any{obj{"type": "header", "text": mrkdwn("hi")}}, "invalid_blocks"},
		{"button text 75", []any{actions(button("a", x(75), "v"))}, ""},
		{"button text 76", []any{actions(button("a", x(76), "v"))}, "invalid_blocks"},
		{"button value 2000", []any{actions(button("a", "b", x(2000)))}, ""},
		{"button value 2001", []any{actions(button("a", "b", x(2001)))}, "invalid_blocks"},
		{"button bad style", []any{actions(obj{"type": "button", "action_id": "a", "text": plain("b"), "style": "blue"})}, "invalid_blocks"},
		{"action_id 255", []any{actions(button(x(255), "b", "v"))}, ""},
		{"action_id 256", []any{actions(button(x(256), "b", "v"))}, "invalid_blocks"},
		{"block_id 256", []any{obj{"type": "divider", "block_id": x(256)}}, "invalid_blocks"},
		{"duplicate action_id in block", []any{actions(button("a", "b", "v"), button("a", "c", "w"))}, "invalid_blocks"},
		{"same action_id in two blocks", []any{actions(button("a", "b", "v")), actions(button("a", "c", "w"))}, ""},
		{"duplicate block_id", []any{obj{"type": "divider", "block_id": "b"}, obj{"type": "divider", "block_id": "b"}}, "invalid_blocks"},
		{"25 elements", []any{actions(buttons(25)...)}, ""},
		{"26 elements", []any{actions(buttons(26)...)}, "invalid_blocks"},
		{"empty actions", []any{actions()}, "invalid_blocks"},
		{"10 context elements", []any{obj{"type": "context", "elements": texts(10, 5)}}, ""},
		{"11 context elements", []any{obj{"type": "context", "elements": texts(11, 5)}}, "invalid_blocks"},
		{"100 options", []any{actions(obj{"type": "static_select", "action_id": "s", "options": options(100)})}, ""},
		{"101 options", []any{actions(obj{"type": "static_select", "action_id": "s", "options": options(101)})}, "invalid_blocks"},
		{"option text 75", []any{actions(obj{"type": "static_select", "action_id": "s", "options": []any{option(x(75), "v")}})}, ""},
		{"option text 76", []any{actions(obj{"type": "static_select", "action_id": "s", "options": []any{option(x(76), "v")}})}, "invalid_blocks"},
		{"option value 150", []any{actions(obj{"type": "static_select", "action_id": "s", "options": []any{option("t", x(150))}})}, ""},
		{"option value 151", []any{actions(obj{"type": "static_select", "action_id": "s", "options": []any{option("t", x(151))}})}, "invalid_blocks"},
		{"select without options", []any{actions(obj{"type": "static_select", "action_id": "s"})}, "invalid_blocks"},
		{"overflow 6 options", []any{actions(obj{"type": "overflow", "action_id": "o", "options": options(6)})}, "invalid_blocks"},
		{"input label 2000", []any{obj{"type": "input", "label": plain(x(2000)), "element": obj{"type": "plain_text_input", "action_id": "i"}}}, ""},
		{"input label 2001", []any{obj{"type": "input", "label": plain(x(2001)), "element": obj{"type": "plain_text_input", "action_id": "i"}}}, "invalid_blocks"},
		{"input without element", []any{obj{"type": "input", "label": plain("l")}}, "invalid_blocks"},
		{"unknown block type", []any{obj{"type": "sektion", "text": mrkdwn("hi")}}, "invalid_blocks"},
		{"unknown element type", []any{actions(obj{"type": "buton", "action_id": "a"})}, "invalid_blocks"},
		{"text object of unknown type", []any{obj{"type": "section", "text": obj{"type": "markdown", "text": "hi"}}}, "invalid_blocks"},
		{"accessory button", []any{obj{"type": "section", "text": mrkdwn("q"), "accessory": button("a", x(76), "v")}}, "invalid_blocks"},
		{"markdown block", []any{obj{"type": "markdown", "text": x(12000)}}, ""},
		{"markdown block too long", []any{obj{"type": "markdown", "text": x(12001)}}, "invalid_blocks"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, msgs := validateMessageBlocks(mustJSON(tc.blocks))
			if code != tc.code {
				t.Fatalf("code = %q (%v), want %q", code, msgs, tc.code)
			}
			if code != "" && len(msgs) == 0 {
				t.Fatalf("rejection without messages")
			}
			for _, m := range msgs {
				if !strings.Contains(m, "[json-pointer:/blocks") {
					t.Errorf("message %q has no json-pointer", m)
				}
			}
		})
	}
}

func TestValidateView(t *testing.T) {
	input := obj{"type": "input", "block_id": "b", "label": plain("Answer"),
		"element": obj{"type": "plain_text_input", "action_id": "a"}}
	modal := func(mut func(obj)) obj {
		v := obj{"type": "modal", "title": plain("Title"), "submit": plain("Send"), "close": plain("Cancel"),
			"blocks": []any{input}}
		if mut != nil {
			mut(v)
		}
		return v
	}
	cases := []struct {
		name string
		want string
		view any
		ok   bool
	}{
		{"modal", "modal", modal(nil), true},
		{"title 24", "modal", modal(func(v obj) { v["title"] = plain(x(24)) }), true},
		{"title 25", "modal", modal(func(v obj) { v["title"] = plain(x(25)) }), false},
		{"title mrkdwn", "modal", modal(func(v obj) { v["title"] = mrkdwn("t") }), false},
		{"no title", "modal", modal(func(v obj) { delete(v, "title") }), false},
		{"submit 25", "modal", modal(func(v obj) { v["submit"] = plain(x(25)) }), false},
		{"close 25", "modal", modal(func(v obj) { v["close"] = plain(x(25)) }), false},
		{"input without submit", "modal", modal(func(v obj) { delete(v, "submit") }), false},
		{"private_metadata 3000", "modal", modal(func(v obj) { v["private_metadata"] = x(3000) }), true},
		{"private_metadata 3001", "modal", modal(func(v obj) { v["private_metadata"] = x(3001) }), false},
		{"callback_id 255", "modal", modal(func(v obj) { v["callback_id"] = x(255) }), true},
		{"callback_id 256", "modal", modal(func(v obj) { v["callback_id"] = x(256) }), false},
		{"100 blocks", "modal", modal(func(v obj) { v["blocks"] = sections(100) }), true},
		{"101 blocks", "modal", modal(func(v obj) { v["blocks"] = sections(101) }), false},
		{"no blocks", "modal", modal(func(v obj) { delete(v, "blocks") }), false},
		{"bad block", "modal", modal(func(v obj) { v["blocks"] = []any{section(x(3001))} }), false},
		{"wrong type", "modal", obj{"type": "home", "blocks": sections(1)}, false},
		{"home", "home", obj{"type": "home", "blocks": sections(100)}, true},
		{"home 101 blocks", "home", obj{"type": "home", "blocks": sections(101)}, false},
		{"not an object", "home", []any{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msgs := validateView(mustJSON(tc.view), tc.want)
			if ok := len(msgs) == 0; ok != tc.ok {
				t.Fatalf("valid = %v (%v), want %v", ok, msgs, tc.ok)
			}
		})
	}
}
