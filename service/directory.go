package service

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
)

// SetDirectory makes the service look group membership up in d. Without
// one (nil) no user group matches anyone: refusing is the safe side.
func (s *Questions) SetDirectory(d hitl.Directory) { s.dir.d.Store(&d) }

// withGroups returns p with its membership of the groups config and
// question id mention looked up in the directory (added to those the edge
// found). Only a principal that is a Slack user (or a token speaking for
// one) is a member of anything. The lookups happen before the transaction
// that decides; a group looked up nowhere counts as not containing p.
func (s *Questions) withGroups(ctx context.Context, p auth.Principal, id string) auth.Principal {
	dir := s.dir.get()
	if dir == nil || p.SlackUser == "" {
		return p
	}
	q, err := s.store.Question(ctx, id)
	if err != nil {
		return p // the transaction reports it
	}
	groups := slices.Clone(p.Groups)
	for _, g := range s.access.Groups(q) {
		if slices.Contains(groups, g) {
			continue
		}
		members, err := dir.GroupMembers(ctx, g)
		if err == nil && slices.Contains(members, p.SlackUser) {
			groups = append(groups, g)
		}
	}
	p.Groups = groups
	return p
}

// directory is the Service's Directory, set once Slack is wired.
type directory struct {
	d atomic.Pointer[hitl.Directory]
}

func (d *directory) get() hitl.Directory {
	if p := d.d.Load(); p != nil {
		return *p
	}
	return nil
}
