package slackfake

import (
	"encoding/json"
	"fmt"
	"maps"
	"time"
)

// trigger is a trigger_id the fake handed out in an interaction payload.
type trigger struct {
	user   string
	issued time.Time
	used   bool
}

// IssueTrigger hands out a trigger_id for user, valid for the trigger TTL
// (3 s by default) from now on the fake clock. Payload builders call it; use
// it directly only for hand-made payloads.
func (s *Server) IssueTrigger(user string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issueTriggerLocked(user)
}

func (s *Server) issueTriggerLocked(user string) string {
	now := s.cfg.clock.Now()
	s.seq++
	id := fmt.Sprintf("%d.%d.%s", now.Unix(), 1000000+s.seq, randomHex(16))
	s.triggers[id] = &trigger{user: user, issued: now}
	return id
}

// checkTriggerLocked answers the trigger errors of views.open and views.push.
func (s *Server) checkTriggerLocked(id string) (*trigger, result, bool) {
	tr, ok := s.triggers[id]
	switch {
	case id == "":
		return nil, errResult("invalid_arguments", "missing required field: trigger_id"), false
	case !ok:
		return nil, errResult("invalid_trigger_id"), false
	case tr.used:
		return nil, errResult("exchanged_trigger_id"), false
	case s.cfg.clock.Now().Sub(tr.issued) > s.cfg.triggerTTL:
		return nil, errResult("expired_trigger_id"), false
	}
	return tr, result{}, true
}

// View is the current state of a view the bot opened, pushed or published.
type View struct {
	ID              string
	Type            string // "modal" or "home"
	User            string // the user it was opened or published for
	CallbackID      string
	PrivateMetadata string
	ExternalID      string
	Hash            string
	Title           string          // title text (modals)
	Blocks          json.RawMessage // current blocks
	Updates         int             // views.update / views.publish calls applied after the first
	Object          map[string]any  // the whole view object as Slack sends it in payloads
}

// viewState is a stored view: the bot's spec plus Slack's fields.
type viewState struct {
	id, user, hash, rootID, previousID string
	spec                               map[string]any
	updates                            int
}

// object renders the view the way Slack does in API answers and payloads.
func (v *viewState) object() map[string]any {
	obj := maps.Clone(v.spec)
	for _, k := range []string{"private_metadata", "callback_id", "external_id"} {
		if _, ok := obj[k]; !ok {
			obj[k] = ""
		}
	}
	for _, k := range []string{"clear_on_close", "notify_on_close"} {
		if _, ok := obj[k]; !ok {
			obj[k] = false
		}
	}
	obj["id"] = v.id
	obj["team_id"] = TeamID
	obj["state"] = map[string]any{"values": map[string]any{}}
	obj["hash"] = v.hash
	obj["root_view_id"] = v.rootID
	obj["previous_view_id"] = nil
	if v.previousID != "" {
		obj["previous_view_id"] = v.previousID
	}
	obj["app_id"] = AppID
	obj["app_installed_team_id"] = TeamID
	obj["bot_id"] = BotID
	return obj
}

// public converts a stored view to the exported View.
func (v *viewState) public() View {
	out := View{ID: v.id, User: v.user, Hash: v.hash, Updates: v.updates, Object: v.object()}
	out.Type, _ = v.spec["type"].(string)
	out.CallbackID, _ = v.spec["callback_id"].(string)
	out.PrivateMetadata, _ = v.spec["private_metadata"].(string)
	out.ExternalID, _ = v.spec["external_id"].(string)
	if t, ok := v.spec["title"].(map[string]any); ok {
		out.Title, _ = t["text"].(string)
	}
	out.Blocks, _ = json.Marshal(v.spec["blocks"])
	return out
}

// readView parses and validates the view argument.
func readView(req *request, wantType string) (map[string]any, result, bool) {
	raw, ok := req.rawJSON("view")
	if !ok {
		return nil, errResult("invalid_arguments", "missing required field: view"), false
	}
	if msgs := validateView(raw, wantType); len(msgs) > 0 {
		return nil, errResult("invalid_arguments", msgs...), false
	}
	var spec map[string]any
	_ = json.Unmarshal(raw, &spec)
	return spec, result{}, true
}

// newViewLocked stores a new view and returns it.
func (s *Server) newViewLocked(user string, spec map[string]any) *viewState {
	s.seq++
	v := &viewState{id: fmt.Sprintf("V0FAKE%04d", s.seq), user: user, spec: spec, hash: s.newHashLocked()}
	v.rootID = v.id
	s.views[v.id] = v
	return v
}

func (s *Server) newHashLocked() string {
	return fmt.Sprintf("%d.%s", s.cfg.clock.Now().Unix(), randomHex(8))
}

// modalForTriggerLocked spends the request's trigger_id on a new modal
// built from the request's view, or says why Slack would refuse.
func (s *Server) modalForTriggerLocked(req *request) (*viewState, result, bool) {
	tr, res, ok := s.checkTriggerLocked(req.str("trigger_id"))
	if !ok {
		return nil, res, false
	}
	spec, res, ok := readView(req, "modal")
	if !ok {
		return nil, res, false
	}
	tr.used = true
	return s.newViewLocked(tr.user, spec), result{}, true
}

// viewsOpen opens a modal in exchange for a fresh trigger_id.
func (s *Server) viewsOpen(req *request) result {
	v, res, ok := s.modalForTriggerLocked(req)
	if !ok {
		return res
	}
	s.viewOrder = append(s.viewOrder, v.id)
	return okResult(map[string]any{"view": v.object()})
}

// viewsPush pushes a modal onto the stack of the user's open modal.
func (s *Server) viewsPush(req *request) result {
	v, res, ok := s.modalForTriggerLocked(req)
	if !ok {
		return res
	}
	for i := len(s.viewOrder) - 1; i >= 0; i-- {
		if prev := s.views[s.viewOrder[i]]; prev.user == v.user {
			v.rootID, v.previousID = prev.rootID, prev.id
			break
		}
	}
	s.viewOrder = append(s.viewOrder, v.id)
	return okResult(map[string]any{"view": v.object()})
}

// viewsUpdate replaces an open modal, by view_id or external_id, honouring
// hash for optimistic locking.
func (s *Server) viewsUpdate(req *request) result {
	var v *viewState
	if id := req.str("view_id"); id != "" {
		v = s.views[id]
	} else if ext := req.str("external_id"); ext != "" {
		for _, cand := range s.views {
			if cand.spec["external_id"] == ext {
				v = cand
			}
		}
	} else {
		return errResult("invalid_arguments", "missing required field: view_id or external_id")
	}
	if v == nil {
		return errResult("not_found")
	}
	if h := req.str("hash"); h != "" && h != v.hash {
		return errResult("hash_conflict")
	}
	spec, res, ok := readView(req, "modal")
	if !ok {
		return res
	}
	v.spec, v.hash = spec, s.newHashLocked()
	v.updates++
	return okResult(map[string]any{"view": v.object()})
}

// viewsPublish publishes user's Home tab.
func (s *Server) viewsPublish(req *request) result {
	user := req.str("user_id")
	if user == "" {
		return errResult("invalid_arguments", "missing required field: user_id")
	}
	spec, res, ok := readView(req, "home")
	if !ok {
		return res
	}
	if id, ok := s.homes[user]; ok {
		v := s.views[id]
		if h := req.str("hash"); h != "" && h != v.hash {
			return errResult("hash_conflict")
		}
		v.spec, v.hash = spec, s.newHashLocked()
		v.updates++
		return okResult(map[string]any{"view": v.object()})
	}
	v := s.newViewLocked(user, spec)
	s.homes[user] = v.id
	return okResult(map[string]any{"view": v.object()})
}

// OpenedViews returns the modals opened or pushed with views.open and
// views.push, oldest first, in their current state.
func (s *Server) OpenedViews() []View {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]View, 0, len(s.viewOrder))
	for _, id := range s.viewOrder {
		out = append(out, s.views[id].public())
	}
	return out
}

// LastView returns the most recently opened modal in its current state.
func (s *Server) LastView() (View, bool) {
	views := s.OpenedViews()
	if len(views) == 0 {
		return View{}, false
	}
	return views[len(views)-1], true
}

// HomeView returns the Home tab published for user.
func (s *Server) HomeView(user string) (View, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.homes[user]
	if !ok {
		return View{}, false
	}
	return s.views[id].public(), true
}
