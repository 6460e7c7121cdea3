package slack

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
)

// groupBudget bounds the user-group lookups of one envelope, so that a
// slow usergroups.users.list leaves time to answer within the ack budget.
const groupBudget = time.Second

// groupCache knows who is in which user group (usergroups.users.list),
// for ttl, and which groups matter: those config names and those the bot
// has seen questions assigned to.
type groupCache struct {
	api   slackAPI
	clock hitl.Clock
	ttl   time.Duration

	mu    sync.Mutex
	byID  map[string]groupEntry
	known map[string]bool
}

type groupEntry struct {
	members map[string]bool
	at      time.Time
}

func newGroupCache(api slackAPI, clock hitl.Clock, ttl time.Duration, access access.Access) *groupCache {
	g := &groupCache{api: api, clock: clock, ttl: ttl, byID: map[string]groupEntry{}, known: map[string]bool{}}
	for _, id := range access.Groups(&hitl.Question{}) {
		g.known[id] = true
	}
	return g
}

// note remembers the groups q is listed for (assigned or escalated to),
// so that a member's queue looks there.
func (g *groupCache) note(q *hitl.Question) {
	for _, a := range q.Listed() {
		if isGroup(a) {
			g.mu.Lock()
			g.known[a] = true
			g.mu.Unlock()
		}
	}
}

// groupsOf returns the groups user belongs to, of those that matter.
func (g *groupCache) groupsOf(ctx context.Context, user string) []string {
	g.mu.Lock()
	ids := make([]string, 0, len(g.known))
	for id := range g.known {
		ids = append(ids, id)
	}
	g.mu.Unlock()
	slices.Sort(ids)
	return g.memberOf(ctx, user, ids)
}

// memberOf returns which of groups user belongs to, within groupBudget. A
// group that cannot be read in time counts as it was last read, or as not
// containing the user (refusing is the safe side).
func (g *groupCache) memberOf(ctx context.Context, user string, groups []string) []string {
	ctx, cancel := context.WithTimeout(ctx, groupBudget)
	defer cancel()
	var out []string
	for _, id := range groups {
		if g.members(ctx, id)[user] {
			out = append(out, id)
		}
	}
	return out
}

func (g *groupCache) members(ctx context.Context, id string) map[string]bool {
	m, _ := g.read(ctx, id)
	return m
}

// read returns group id's members, from the cache while it is fresh. A
// group that cannot be read counts as it was last read (stale is better
// than nothing), or is an error when it never was.
func (g *groupCache) read(ctx context.Context, id string) (map[string]bool, error) {
	g.mu.Lock()
	e, ok := g.byID[id]
	g.mu.Unlock()
	if ok && g.clock.Now().Sub(e.at) < g.ttl {
		return e.members, nil
	}
	if err := ctx.Err(); err != nil {
		return e.members, staleOr(ok, err)
	}
	users, err := g.api.GetUserGroupMembersContext(ctx, id)
	if err != nil {
		return e.members, staleOr(ok, err)
	}
	m := make(map[string]bool, len(users))
	for _, u := range users {
		m[u] = true
	}
	g.mu.Lock()
	g.byID[id] = groupEntry{members: m, at: g.clock.Now()}
	g.mu.Unlock()
	return m, nil
}

func staleOr(stale bool, err error) error {
	if stale {
		return nil
	}
	return err
}

var _ hitl.Directory = (*groupCache)(nil)

// GroupMembers implements hitl.Directory over the cache, within
// groupBudget: the root looks up a principal's groups with it before
// deciding an answer, whichever edge the answer came through.
func (g *groupCache) GroupMembers(ctx context.Context, id string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, groupBudget)
	defer cancel()
	m, err := g.read(ctx, id)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(m)), nil
}

// Directory is who is in which Slack user group, cached with expiry: the
// service's hitl.Directory (Service.SetDirectory).
func (b *Bot) Directory() hitl.Directory { return b.groups }

// as returns ctx acting as Slack user user, with the rights config gives
// them and their membership of the groups q and config mention looked up.
// The root's rules then decide what they may do to q.
func (b *Bot) as(ctx context.Context, q *hitl.Question, user string) (context.Context, auth.Principal) {
	p := b.cfg.Access.SlackPrincipal(user, b.groups.memberOf(ctx, user, b.cfg.Access.Groups(q)))
	return auth.WithEdge(auth.WithPrincipal(ctx, p), auth.EdgeSlack), p
}

// seedPage is how many pending questions seedGroups reads at a time.
var seedPage = 200

// seedGroups notes the groups the pending questions are listed for, page
// by page: a bot that starts (again) knows the groups questions were
// assigned or escalated to before it, not only those of the questions it
// sees change. Its cost grows with the pending questions, once a start.
func (b *Bot) seedGroups(ctx context.Context) error {
	f := hitl.QuestionFilter{Status: hitl.StatusPending, Limit: seedPage}
	for {
		page, err := b.svc.Questions.QuestionPage(ctx, f)
		if err != nil {
			return err
		}
		for _, q := range page.Questions {
			b.groups.note(q)
		}
		if page.NextCursor == "" {
			return nil
		}
		f.Cursor = page.NextCursor
	}
}
