package store

import (
	"bytes"
	"fmt"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

// migrateListed is schema 7's step: a pending question is in the assignee
// lists (by_assignee and by_due_list's assignee lists) of the people
// escalation added too (hitl.Question.Listed). Earlier versions listed
// its assignees only, so the pending questions that were escalated get
// their missing entries. Escalation only adds entries, so this puts
// indexOf's entries of those two buckets (a put of one already there
// changes nothing) and reads the pending questions only, through
// by_status: its cost grows with what is pending, not with what is kept.
func migrateListed(tx *bolt.Tx) error {
	buckets := [][]byte{bucketByAssignee, bucketByDueList}
	prefix := append([]byte(hitl.StatusPending), 0) // by_status: status ‖ 0x00 ‖ createdAt ‖ id
	c := tx.Bucket(bucketByStatus).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if len(k) <= len(prefix)+8 {
			return fmt.Errorf("by_status key %x is too short", k)
		}
		q, err := getQuestion(tx, string(k[len(prefix)+8:]))
		if err != nil {
			return fmt.Errorf("pending question of by_status key %x: %w", k, err)
		}
		if len(q.EscalatedTo) == 0 {
			continue
		}
		for _, e := range indexOf(q) {
			for _, b := range buckets {
				if bytes.Equal(e.bucket, b) {
					if err := tx.Bucket(b).Put(e.key, []byte{}); err != nil {
						return fmt.Errorf("put %s entry of question %s: %w", b, q.ID, err)
					}
				}
			}
		}
	}
	return nil
}
