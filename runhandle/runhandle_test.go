package runhandle_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/runhandle"
)

// runs is a Finder over a list of run ids, read as a store reads them.
type runs []string

func (r runs) RunsByPrefix(_ context.Context, prefix string, limit int) ([]*hitl.Run, error) {
	ids := append([]string(nil), r...)
	sort.Strings(ids)
	var out []*hitl.Run
	for _, id := range ids {
		if strings.HasPrefix(id, prefix) && len(out) < limit {
			out = append(out, &hitl.Run{ID: id})
		}
	}
	return out, nil
}

func (r runs) RunRecord(_ context.Context, id string) (*hitl.Run, error) {
	for _, x := range r {
		if x == id {
			return &hitl.Run{ID: id}, nil
		}
	}
	return nil, fault.Errorf(fault.ENOTFOUND, "no run %s", id)
}

// TestMatch is the rule for naming a run by hand, row by row.
func TestMatch(t *testing.T) {
	all := runs{"loop-10", "loop-1", "grind-7", "claude-3f2b8c1e", "claude-3f2b9d00", "finished-1"}
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		matches []string
		run     string
		code    string
	}{
		{"loop-1", []string{"loop-1"}, "loop-1", ""}, // an exact id wins over the runs it prefixes
		{"grind", []string{"grind-7"}, "grind-7", ""},
		{"loop", []string{"loop-1", "loop-10"}, "", fault.EINVALID},
		{"claude-3f2b", []string{"claude-3f2b8c1e", "claude-3f2b9d00"}, "", fault.EINVALID},
		{"nothing", []string{}, "", fault.ENOTFOUND},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runhandle.Match(ctx, all, tc.name)
			require.NoError(t, err)
			assert.Equal(t, tc.matches, got)
			run, err := runhandle.Resolve(ctx, all, tc.name)
			assert.Equal(t, tc.run, run)
			assert.Equal(t, tc.code, fault.Code(err))
		})
	}
	_, err := runhandle.Match(ctx, all, "bad id!")
	assert.Equal(t, fault.EINVALID, fault.Code(err), "a name that cannot be a run id is refused")
}

// TestOf: a handle is the shortest unique prefix, never shorter than
// the first word and four characters; a short id is its own handle.
func TestOf(t *testing.T) {
	all := runs{"claude-3f2b8c1e-aaaa-bbbb-cccc", "claude-3f2b9d00-aaaa-bbbb-cccc", "loop-1703123456-12345", "loop-1", "loop-10", "buildbuildbuild-x"}
	for id, want := range map[string]string{
		"claude-3f2b8c1e-aaaa-bbbb-cccc": "claude-3f2b8", // past the floor until unique
		"claude-3f2b9d00-aaaa-bbbb-cccc": "claude-3f2b9",
		"loop-1703123456-12345":          "loop-1703",
		"loop-1":                         "loop-1", // at most ShortID characters: its own handle
		"buildbuildbuild-x":              "buildbuildbuild-x",
	} {
		got, err := runhandle.Of(context.Background(), all, id)
		require.NoError(t, err)
		assert.Equal(t, want, got, id)
		matches, err := runhandle.Match(context.Background(), all, got)
		require.NoError(t, err)
		assert.Equal(t, []string{id}, matches, "a handle names its run alone")
	}
}
