package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	bolt "go.etcd.io/bbolt"
)

// queueSource is one index a queue merges: a cursor over the keys with a
// prefix, and the key it stands on.
type queueSource struct {
	c      *bolt.Cursor
	prefix []byte
	key    []byte
}

// sortKey is the part of an index key the merge orders by: time ‖ id.
func (s *queueSource) sortKey() []byte { return s.key[len(s.prefix):] }

// queue reads a person's queue (f.Queue, f.Unassigned): it merges the
// assignee index of each id and the unassigned index on their sort keys
// (time ‖ id: creation time, or the deadline with f.ByDeadline), newest
// (latest) first with f.Reverse, and decodes only the questions it
// returns: the cost is the page, however much each index holds. Read by
// deadline, it goes on after a cursor (the sort key of the page's last
// question) and says where the next page starts; by creation time it is
// one page (More says there are more).
func (db *DB) queue(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionPage, error) {
	var after []byte
	if f.Cursor != "" {
		var err error
		if !f.ByDeadline {
			return hitl.QuestionPage{}, fault.Errorf(fault.EINVALID, "a queue by creation time is read in one page: it takes no cursor")
		}
		if after, err = base64.RawURLEncoding.DecodeString(f.Cursor); err != nil || len(after) <= 8 {
			return hitl.QuestionPage{}, fault.Errorf(fault.EINVALID, "cursor %q does not belong to this list: use the nextCursor of the previous page, with the same filters", f.Cursor)
		}
	}
	tx, err := db.bolt.Begin(false)
	if err != nil {
		return hitl.QuestionPage{}, fmt.Errorf("store: read queue: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var sources []*queueSource
	add := func(bucket, prefix []byte) {
		s := &queueSource{c: tx.Bucket(bucket).Cursor(), prefix: prefix}
		switch {
		case after != nil && f.Reverse:
			s.c.Seek(append(bytes.Clone(prefix), after...))
			s.key, _ = s.c.Prev()
		case after != nil:
			from := append(bytes.Clone(prefix), after...)
			if s.key, _ = s.c.Seek(from); bytes.Equal(s.key, from) {
				s.key, _ = s.c.Next()
			}
		case f.Reverse:
			s.key = seekLast(s.c, prefix)
		default:
			s.key, _ = s.c.Seek(prefix)
		}
		sources = append(sources, s)
	}
	for _, id := range f.Queue {
		if f.ByDeadline {
			add(bucketByDueList, dueList(dueAssignee, id))
		} else {
			add(bucketByAssignee, append([]byte(id), 0))
		}
	}
	if f.Unassigned {
		if f.ByDeadline {
			add(bucketByDueList, dueList(dueUnassigned, ""))
		} else {
			add(bucketUnassigned, nil)
		}
	}
	size := f.PageSize()
	page := hitl.QuestionPage{Questions: []*hitl.Question{}}
	seen := map[string]bool{}
	var last []byte
	for {
		var best *queueSource
		for _, s := range sources {
			if s.key == nil || !bytes.HasPrefix(s.key, s.prefix) {
				continue
			}
			if best == nil || (bytes.Compare(s.sortKey(), best.sortKey()) > 0) == f.Reverse {
				best = s
			}
		}
		if best == nil {
			return page, nil
		}
		id := string(best.sortKey()[8:])
		if !seen[id] {
			if len(page.Questions) == size {
				page.More = true
				if f.ByDeadline {
					page.NextCursor = base64.RawURLEncoding.EncodeToString(last)
				}
				return page, nil
			}
			seen[id] = true
			q, err := getQuestion(tx, id)
			if err != nil {
				return hitl.QuestionPage{}, fmt.Errorf("store: queue entry %x: %w", best.key, err)
			}
			if f.Match(q) {
				page.Questions = append(page.Questions, q)
				last = append(last[:0], best.sortKey()...)
			}
		}
		if f.Reverse {
			best.key, _ = best.c.Prev()
		} else {
			best.key, _ = best.c.Next()
		}
	}
}
