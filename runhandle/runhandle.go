// Package runhandle owns run handles. A run's handle is the shortest
// prefix of its id that names it alone
// among every run stored, ended ones too, and never shorter than the
// id's first word and four characters after it ("claude-3f2b" for the
// Claude Code session claude-3f2b8c1e-…, "loop-1703" for
// loop-1703123456-12345), or four characters for an id without a dash.
// An id of at most ShortID characters ("build", "deploy-42") is its
// own handle: it is already short enough to type, and a cut name
// ("buil") reads as a typo. Short enough to type, long enough to read as what it names and to stay
// unique as runs come. Every command that takes a run takes its handle
// (Match). A handle is a prefix, not a name of its own: it can grow
// when a run with the same beginning arrives.
package runhandle

import (
	"context"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// MaxMatches bounds the runs Match returns for an ambiguous prefix.
const MaxMatches = 10

// ShortID is the longest run id that is its own handle.
const ShortID = 12

// handleFloor is the length of the shortest handle of id.
func handleFloor(id string) int {
	if len(id) <= ShortID {
		return len(id)
	}
	n := 4
	if i := strings.IndexByte(id, '-'); i > 0 {
		n = i + 1 + 4
	}
	return min(n, len(id))
}

// Prefixer reads runs by the beginning of their id (Store, Service,
// client.Client).
type Prefixer interface {
	RunsByPrefix(ctx context.Context, prefix string, limit int) ([]*hitl.Run, error)
}

// Of is run id's handle: it reads by prefix until a prefix names
// id alone, at most one short read per character past the floor (usually
// one read).
func Of(ctx context.Context, f Prefixer, id string) (string, error) {
	for n := handleFloor(id); n < len(id); n++ {
		runs, err := f.RunsByPrefix(ctx, id[:n], 2)
		if err != nil {
			return "", err
		}
		if len(runs) == 1 && runs[0].ID == id {
			return id[:n], nil
		}
	}
	return id, nil // a run whose id is a prefix of others' is named whole
}

// Finder reads runs: what Match needs (service.Runs, client.Client).
type Finder interface {
	Prefixer
	RunRecord(ctx context.Context, id string) (*hitl.Run, error)
}

// Match is the rule for naming a run by hand (a slash command, the
// CLI, a handle hitl runs printed): the run whose id is name, else every
// run, active or ended, whose id starts with name (at most
// MaxMatches+1 of them). One match names the run; none or several are
// the edge's to explain (RunMatchError). It costs one read of a record and
// one read by prefix, whatever the number of runs.
func Match(ctx context.Context, f Finder, name string) ([]string, error) {
	if err := steer.ValidateRunID(name); err != nil {
		return nil, err
	}
	if _, err := f.RunRecord(ctx, name); err == nil {
		return []string{name}, nil
	} else if fault.Code(err) != fault.ENOTFOUND {
		return nil, err
	}
	runs, err := f.RunsByPrefix(ctx, name, MaxMatches+1)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(runs))
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	return ids, nil
}

// Resolve is the one run name means (Match), or the error that says
// why there is none: not_found naming what was looked for, or invalid
// listing the candidates of an ambiguous prefix.
func Resolve(ctx context.Context, f Finder, name string) (string, error) {
	ids, err := Match(ctx, f, name)
	if err != nil {
		return "", err
	}
	switch {
	case len(ids) == 1:
		return ids[0], nil
	case len(ids) == 0:
		return "", fault.Errorf(fault.ENOTFOUND, "no run is named %s or starts with it", name)
	case len(ids) > MaxMatches:
		return "", fault.Errorf(fault.EINVALID, "%s begins more than %d runs (%s, …): give more of the id", name, MaxMatches, strings.Join(ids[:MaxMatches], ", "))
	}
	return "", fault.Errorf(fault.EINVALID, "%s begins %d runs (%s): give more of the id", name, len(ids), strings.Join(ids, ", "))
}
