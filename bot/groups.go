package bot

import (
	"context"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/slack-go/slack"
)

// groupCache knows who is in which user group (usergroups.users.list),
// for a while.
type groupCache struct {
	api   *slack.Client
	clock hitl.Clock
	ttl   time.Duration
	mu    sync.Mutex
	byID  map[string]groupEntry
}

type groupEntry struct {
	members map[string]bool
	at      time.Time
}

func newGroupCache(api *slack.Client, clock hitl.Clock, ttl time.Duration) *groupCache {
	return &groupCache{api: api, clock: clock, ttl: ttl, byID: map[string]groupEntry{}}
}

// memberOf returns which of groups user belongs to. A group that cannot be
// read counts as not containing the user (refusing is the safe side).
func (g *groupCache) memberOf(ctx context.Context, user string, groups []string) []string {
	var out []string
	for _, id := range groups {
		if g.members(ctx, id)[user] {
			out = append(out, id)
		}
	}
	return out
}

func (g *groupCache) members(ctx context.Context, id string) map[string]bool {
	g.mu.Lock()
	e, ok := g.byID[id]
	g.mu.Unlock()
	if ok && g.clock.Now().Sub(e.at) < g.ttl {
		return e.members
	}
	users, err := g.api.GetUserGroupMembersContext(ctx, id)
	if err != nil {
		return e.members // stale is better than nothing; nil when never read
	}
	m := make(map[string]bool, len(users))
	for _, u := range users {
		m[u] = true
	}
	g.mu.Lock()
	g.byID[id] = groupEntry{members: m, at: g.clock.Now()}
	g.mu.Unlock()
	return m
}

// as returns ctx acting as Slack user user, with the rights config gives
// them and their membership of the groups q and config mention looked up.
// The root's rules then decide what they may do to q.
func (b *Bot) as(ctx context.Context, q *hitl.Question, user string) (context.Context, hitl.Principal) {
	p := b.cfg.Access.SlackPrincipal(user, b.groups.memberOf(ctx, user, b.cfg.Access.Groups(q)))
	return hitl.WithPrincipal(ctx, p), p
}
