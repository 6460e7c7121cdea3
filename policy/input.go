package policy

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A framework tool's input is sent as its resource, a JSON object
// ({"path": "notes.md", "content": "line 1\nline 2"}): people read it as
// its fields, in the order the agent sent them, each string as written
// (its line breaks kept), every other value as compact JSON.

// InputField is one field of a tool's input.
type InputField struct {
	Key   string
	Value string
	// Multiline: a string of several lines, shown as a block.
	Multiline bool
}

// maxInputFields bounds the fields shown; the rest stay in the resource.
const maxInputFields = 50

// Input is the operation's resource as the fields of a tool's input, when
// it is a JSON object; nil otherwise (a command, a path, a URL).
func (o *Operation) Input() []InputField {
	r := strings.TrimSpace(o.Resource)
	if len(r) < 2 || r[0] != '{' {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(r))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []InputField
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil
		}
		f := InputField{Key: key}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			f.Value, f.Multiline = s, strings.Contains(s, "\n")
		} else {
			var b bytes.Buffer
			if json.Compact(&b, raw) != nil {
				return nil
			}
			f.Value = b.String()
		}
		if len(out) < maxInputFields {
			out = append(out, f)
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') || dec.More() {
		return nil
	}
	return out
}
