package slackfake

import "strings"

// WithUserEmail gives user id a profile email, which users.info returns
// (as Slack does for an app with users:read.email).
func WithUserEmail(id, email string) Option {
	return func(c *config) {
		if c.emails == nil {
			c.emails = map[string]string{}
		}
		c.emails[id] = email
	}
}

// usersInfo answers users.info for any well-formed user id: its name (if
// named) and profile email (if given), else user_not_found.
func (s *Server) usersInfo(req *request) result {
	id := req.str("user")
	name, named := s.cfg.users[id]
	email, hasEmail := s.cfg.emails[id]
	if !named && !hasEmail {
		return errResult("user_not_found")
	}
	if name == "" {
		name = id
	}
	profile := map[string]any{"real_name": name, "display_name": name}
	if hasEmail {
		profile["email"] = email
	}
	return okResult(map[string]any{"user": map[string]any{"id": id, "name": name, "profile": profile}})
}

// usersLookupByEmail answers users.lookupByEmail: the user whose profile
// has the e-mail (compared case-insensitively, as Slack does), else
// users_not_found.
func (s *Server) usersLookupByEmail(req *request) result {
	want := req.str("email")
	for id, email := range s.cfg.emails {
		if strings.EqualFold(email, want) {
			name := s.cfg.users[id]
			if name == "" {
				name = id
			}
			return okResult(map[string]any{"user": map[string]any{"id": id, "name": name,
				"profile": map[string]any{"real_name": name, "display_name": name, "email": email}}})
		}
	}
	return errResult("users_not_found")
}
