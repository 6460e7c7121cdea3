package slackfake

import "slices"

// WithUserGroup declares a user group (S...) and its members.
func WithUserGroup(id string, members ...string) Option {
	return func(c *config) { c.groups[id] = slices.Clone(members) }
}

// SetUserGroup replaces the members of a user group, declaring it if needed.
func (s *Server) SetUserGroup(id string, members ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.groups[id] = slices.Clone(members)
}

// usergroupsUsersList lists the members of a user group.
func (s *Server) usergroupsUsersList(req *request) result {
	members, ok := s.cfg.groups[req.str("usergroup")]
	if !ok {
		return errResult("no_such_subteam")
	}
	return okResult(map[string]any{"users": append([]string{}, members...)})
}
