package store

import (
	"bytes"
	"context"
	"fmt"

	"github.com/hitlbot/hitl"
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
// assignee index of each id and the unassigned index on their keys
// (time ‖ id), newest first with f.Reverse, and decodes only the
// questions it returns: the cost is the page, however much each index
// holds.
func (db *DB) queue(ctx context.Context, f hitl.QuestionFilter) (hitl.QuestionPage, error) {
	if f.Cursor != "" {
		return hitl.QuestionPage{}, hitl.Errorf(hitl.EINVALID, "a queue is read in one page: it takes no cursor")
	}
	tx, err := db.bolt.Begin(false)
	if err != nil {
		return hitl.QuestionPage{}, fmt.Errorf("store: read queue: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var sources []*queueSource
	add := func(bucket, prefix []byte) {
		s := &queueSource{c: tx.Bucket(bucket).Cursor(), prefix: prefix}
		if f.Reverse {
			s.key = seekLast(s.c, prefix)
		} else {
			s.key, _ = s.c.Seek(prefix)
		}
		sources = append(sources, s)
	}
	for _, id := range f.Queue {
		add(bucketByAssignee, append([]byte(id), 0))
	}
	if f.Unassigned {
		add(bucketUnassigned, nil)
	}
	size := f.PageSize()
	page := hitl.QuestionPage{Questions: []*hitl.Question{}}
	seen := map[string]bool{}
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
				return page, nil
			}
			seen[id] = true
			q, err := getQuestion(tx, id)
			if err != nil {
				return hitl.QuestionPage{}, fmt.Errorf("store: queue entry %x: %w", best.key, err)
			}
			if f.Match(q) {
				page.Questions = append(page.Questions, q)
			}
		}
		if f.Reverse {
			best.key, _ = best.c.Prev()
		} else {
			best.key, _ = best.c.Next()
		}
	}
}
