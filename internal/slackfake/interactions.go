package slackfake

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// ActionOption adjusts a block_actions payload.
type ActionOption func(*actionConfig)

type actionConfig struct {
	selected []string
	stale    bool
}

// StaleClick lets the user click an element of an earlier version of the
// message, as a client that has not yet seen the bot's chat.update would:
// the payload carries the newest version that still had the element. Use it
// to test double answers and races with updates.
func StaleClick() ActionOption { return func(c *actionConfig) { c.stale = true } }

// SelectedValues picks several options of a multi_static_select or
// checkboxes element (value is then ignored).
func SelectedValues(values ...string) ActionOption {
	return func(c *actionConfig) { c.selected = values }
}

// BlockActions is the block_actions payload of user using the element
// blockID/actionID of the stored message channel/messageTs. The element
// must exist in the message as the bot last posted or updated it: a button
// sends its own value (value, if not empty, must match it), a select sends
// the option whose value is value. The payload carries the message, a fresh
// trigger_id and a response_url served by the fake. Problems fail the test.
func (s *Server) BlockActions(user, channel, messageTs, actionID, blockID, value string, opts ...ActionOption) Payload {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cfg actionConfig
	for _, o := range opts {
		o(&cfg)
	}
	m, ephemeral := s.findMessage(channel, messageTs), false
	if m == nil {
		for i := range s.ephemerals {
			if e := s.ephemerals[i]; e.Channel == channel && e.TS == messageTs {
				m, ephemeral = &message{Message: e}, true
			}
		}
	}
	if m == nil {
		s.t.Errorf("slackfake: BlockActions: no message %s in %s", messageTs, channel)
		return Payload{}
	}
	if cfg.stale {
		m = staleVersion(m, blockID, actionID)
	}
	action, err := s.actionLocked(m.Blocks, blockID, actionID, value, cfg)
	if err != nil {
		s.t.Errorf("slackfake: BlockActions on message %s in %s: %v", messageTs, channel, err)
	}
	container := map[string]any{"type": "message", "message_ts": messageTs, "channel_id": channel, "is_ephemeral": ephemeral}
	if m.ThreadTS != "" {
		container["thread_ts"] = m.ThreadTS
	}
	p := Payload{
		"type":                  "block_actions",
		"user":                  s.userObject(user),
		"api_app_id":            AppID,
		"token":                 VerificationToken,
		"container":             container,
		"trigger_id":            s.issueTriggerLocked(user),
		"team":                  teamObject(),
		"enterprise":            nil,
		"is_enterprise_install": false,
		"channel":               map[string]any{"id": channel, "name": s.channelName(channel)},
		"state":                 map[string]any{"values": map[string]any{}},
		"response_url":          s.responseURLLocked(channel, messageTs, user),
		"actions":               []any{action},
	}
	if !ephemeral {
		p["message"] = m.object()
	}
	return p
}

// staleVersion returns the newest version of m that has the element.
func staleVersion(m *message, blockID, actionID string) *message {
	if _, err := findElement(m.Blocks, blockID, actionID); err == nil {
		return m
	}
	for i := len(m.history) - 1; i >= 0; i-- {
		if _, err := findElement(m.history[i].Blocks, blockID, actionID); err == nil {
			old := *m
			old.Message = m.history[i]
			return &old
		}
	}
	return m
}

// ViewBlockActions is the block_actions payload of user using an element of
// a view: an open modal or a published Home tab.
func (s *Server) ViewBlockActions(user, viewID, actionID, blockID, value string, opts ...ActionOption) Payload {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cfg actionConfig
	for _, o := range opts {
		o(&cfg)
	}
	v, ok := s.views[viewID]
	if !ok {
		s.t.Errorf("slackfake: ViewBlockActions: no view %s", viewID)
		return Payload{}
	}
	blocks, _ := json.Marshal(v.spec["blocks"])
	action, err := s.actionLocked(blocks, blockID, actionID, value, cfg)
	if err != nil {
		s.t.Errorf("slackfake: ViewBlockActions on view %s: %v", viewID, err)
	}
	return Payload{
		"type":                  "block_actions",
		"user":                  s.userObject(user),
		"api_app_id":            AppID,
		"token":                 VerificationToken,
		"container":             map[string]any{"type": "view", "view_id": viewID},
		"trigger_id":            s.issueTriggerLocked(user),
		"team":                  teamObject(),
		"enterprise":            nil,
		"is_enterprise_install": false,
		"view":                  v.object(),
		"actions":               []any{action},
	}
}

// ViewSubmission is the view_submission payload of user submitting view
// (from LastView or OpenedViews) with values[block_id][action_id] filled in.
// The state covers every input block of the view as it is now, typed by
// element: plain_text_input gets "value", static_select "selected_option"
// (looked up by value), multi selects take comma-separated values, and so
// on. Unknown IDs and empty required inputs fail the test, since Slack's
// client would not let the user submit.
func (s *Server) ViewSubmission(user string, view View, values map[string]map[string]string) Payload {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.views[view.ID]
	if !ok {
		s.t.Errorf("slackfake: ViewSubmission: no view %s", view.ID)
		return Payload{}
	}
	if v.user != user {
		s.t.Errorf("slackfake: ViewSubmission: view %s was opened for %s, not %s", v.id, v.user, user)
	}
	state, errs := submissionState(v.spec, values)
	for _, e := range errs {
		s.t.Errorf("slackfake: ViewSubmission of view %s: %s", v.id, e)
	}
	obj := v.object()
	obj["state"] = map[string]any{"values": state}
	return Payload{
		"type":                  "view_submission",
		"team":                  teamObject(),
		"user":                  s.userObject(user),
		"api_app_id":            AppID,
		"token":                 VerificationToken,
		"trigger_id":            s.issueTriggerLocked(user),
		"view":                  obj,
		"response_urls":         []any{},
		"is_enterprise_install": false,
		"enterprise":            nil,
	}
}

// findElement returns the element blockID/actionID in blocks and its block.
func findElement(blocks json.RawMessage, blockID, actionID string) (map[string]any, error) {
	var list []map[string]any
	_ = json.Unmarshal(blocks, &list)
	for _, b := range list {
		if b["block_id"] != blockID {
			continue
		}
		var els []any
		if e, ok := b["elements"].([]any); ok {
			els = e
		}
		for _, k := range []string{"accessory", "element"} {
			if e, ok := b[k]; ok {
				els = append(els, e)
			}
		}
		for _, e := range els {
			if em, ok := e.(map[string]any); ok && em["action_id"] == actionID {
				return em, nil
			}
		}
		return nil, fmt.Errorf("block %q has no element with action_id %q", blockID, actionID)
	}
	return nil, fmt.Errorf("no block with block_id %q", blockID)
}

// actionLocked builds the "actions" entry for using an element.
func (s *Server) actionLocked(blocks json.RawMessage, blockID, actionID, value string, cfg actionConfig) (map[string]any, error) {
	action := map[string]any{"action_id": actionID, "block_id": blockID, "action_ts": s.nextTSLocked()}
	el, err := findElement(blocks, blockID, actionID)
	if err != nil {
		action["type"], action["value"] = "button", value
		return action, err
	}
	typ, _ := el["type"].(string)
	action["type"] = typ
	switch typ {
	case "button":
		own, _ := el["value"].(string)
		if value != "" && value != own {
			err = fmt.Errorf("button %q has value %q, not %q", actionID, own, value)
		}
		action["text"] = el["text"]
		if own != "" {
			action["value"] = own
		}
		if st, ok := el["style"]; ok {
			action["style"] = st
		}
	case "static_select", "overflow", "radio_buttons":
		opt, oerr := findOption(el, value)
		action["selected_option"], err = opt, oerr
		if ph, ok := el["placeholder"]; ok {
			action["placeholder"] = ph
		}
	case "multi_static_select", "checkboxes":
		vals := cfg.selected
		if vals == nil {
			vals = []string{value}
		}
		var opts []any
		for _, v := range vals {
			opt, oerr := findOption(el, v)
			if oerr != nil {
				err = oerr
			}
			opts = append(opts, opt)
		}
		action["selected_options"] = opts
	default:
		if key := selectedKey(typ); key != "" {
			action[key] = value
		} else {
			action["value"] = value
		}
	}
	return action, err
}

// findOption returns the option of el whose value is value.
func findOption(el map[string]any, value string) (any, error) {
	var opts []any
	if o, ok := el["options"].([]any); ok {
		opts = append(opts, o...)
	}
	if groups, ok := el["option_groups"].([]any); ok {
		for _, g := range groups {
			if gm, ok := g.(map[string]any); ok {
				if o, ok := gm["options"].([]any); ok {
					opts = append(opts, o...)
				}
			}
		}
	}
	for _, o := range opts {
		if om, ok := o.(map[string]any); ok && om["value"] == value {
			return om, nil
		}
	}
	return nil, fmt.Errorf("element %v has no option with value %q", el["action_id"], value)
}

// selectedKey is the state/action key of single-value pickers.
func selectedKey(typ string) string {
	return map[string]string{
		"datepicker": "selected_date", "timepicker": "selected_time", "datetimepicker": "selected_date_time",
		"users_select": "selected_user", "conversations_select": "selected_conversation",
		"channels_select": "selected_channel", "multi_users_select": "selected_users",
		"multi_conversations_select": "selected_conversations", "multi_channels_select": "selected_channels",
	}[typ]
}

// submissionState builds view.state.values for a submission of spec.
func submissionState(spec map[string]any, values map[string]map[string]string) (map[string]any, []string) {
	var errs []string
	used := map[string]bool{}
	state := map[string]any{}
	blocks, _ := spec["blocks"].([]any)
	for _, b := range blocks {
		bm, _ := b.(map[string]any)
		if bm["type"] != "input" {
			continue
		}
		el, _ := bm["element"].(map[string]any)
		blockID, _ := bm["block_id"].(string)
		actionID, _ := el["action_id"].(string)
		typ, _ := el["type"].(string)
		val, given := values[blockID][actionID]
		used[blockID+"\x00"+actionID] = given
		if (!given || val == "") && bm["optional"] != true {
			errs = append(errs, fmt.Sprintf("required input %s/%s is empty", blockID, actionID))
		}
		entry := map[string]any{"type": typ}
		switch {
		case typ == "static_select" || typ == "radio_buttons":
			entry["selected_option"] = nil
			if given && val != "" {
				opt, err := findOption(el, val)
				if err != nil {
					errs = append(errs, err.Error())
				}
				entry["selected_option"] = opt
			}
		case typ == "multi_static_select" || typ == "checkboxes":
			opts := []any{}
			for v := range strings.SplitSeq(val, ",") {
				if v == "" {
					continue
				}
				opt, err := findOption(el, v)
				if err != nil {
					errs = append(errs, err.Error())
				}
				opts = append(opts, opt)
			}
			entry["selected_options"] = opts
		case strings.HasPrefix(typ, "multi_") && selectedKey(typ) != "":
			entry[selectedKey(typ)] = slices.DeleteFunc(strings.Split(val, ","), func(s string) bool { return s == "" })
		case selectedKey(typ) != "":
			entry[selectedKey(typ)] = nilIfEmpty(val, given)
		default:
			entry["value"] = nilIfEmpty(val, given)
		}
		if state[blockID] == nil {
			state[blockID] = map[string]any{}
		}
		state[blockID].(map[string]any)[actionID] = entry
	}
	for blockID, acts := range values {
		for actionID := range acts {
			if _, ok := used[blockID+"\x00"+actionID]; !ok {
				errs = append(errs, fmt.Sprintf("the view has no input %s/%s", blockID, actionID))
			}
		}
	}
	slices.Sort(errs)
	return state, errs
}

func nilIfEmpty(v string, given bool) any {
	if !given || v == "" {
		return nil
	}
	return v
}
