package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/uid"
	bolt "go.etcd.io/bbolt"
)

// migrate brings a file of schema version from up to SchemaVersion, in the
// transaction that opens it (all or nothing).
//
// 1 → 2: runs became records and lists got indexes (by status, creation,
// asker, assignee, responder, settling time, a run's pending questions);
// the old pending index is dropped. Every index and run is rebuilt from
// the questions, once.
//
// 2 → 3: learned rules became records of their own (learned.go): each
// rule of the policy JSON's "learned" list is moved into one, and the
// policy is rewritten without the list; and idempotency keys are held
// per asker (hitl.KeyOf): the idem index is rebuilt from the questions.
//
// 3 → 4: a run's events are read by an index (events_by_run, built from
// the log) and lists by asker × status, type and type × status by
// by_filter (built from the questions).
//
// 4 → 5: questions carry a reminder plan, indexed by when its next
// reminder is due (by_reminder, built from the questions).
//
// 5 → 6: pending questions are listed by deadline from by_due_list
// (built from the questions).
//
// 6 → 7: a pending question is listed for the people escalation added
// too (migrate_listed.go).
//
// 7 → 8: control request ids are held per principal (migrate_control.go).
//
// 8 → 9: runs_active holds the open runs (hitl.Run.Open): those waiting
// on a person are added (migrate_open.go).
//
// 9 → 10: stats read hourly and per-minute rollups (hitl.Rollup), built
// from the questions and the log (rollup.go).
//
// 10 → 11: a callback's target is its callbackUrl's normalised origin,
// and a due webhook names its asker (migrate_webhooks.go).
func migrate(tx *bolt.Tx, from uint64) error {
	if from < 2 {
		if tx.Bucket([]byte("pending")) != nil {
			if err := tx.DeleteBucket([]byte("pending")); err != nil {
				return fmt.Errorf("migrate: drop pending: %w", err)
			}
		}
		for _, name := range append(indexBuckets, bucketRuns, bucketRunsActive, bucketCounts) {
			if tx.Bucket(name) != nil {
				if err := tx.DeleteBucket(name); err != nil {
					return fmt.Errorf("migrate: reset %s: %w", name, err)
				}
			}
			if _, err := tx.CreateBucket(name); err != nil {
				return fmt.Errorf("migrate: create %s: %w", name, err)
			}
		}
		c := tx.Bucket(bucketQuestions).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			q, err := decodeQuestion(string(k), v)
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			if err := count(tx, nil, q); err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			if err := moveIndexes(tx, q.ID, nil, indexOf(q)); err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			if _, err := trackRun(tx, nil, q, q.CreatedAt); err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
		}
	} else if from < 3 {
		if err := tx.DeleteBucket(bucketIdem); err != nil {
			return fmt.Errorf("migrate: reset %s: %w", bucketIdem, err)
		}
		idem, err := tx.CreateBucket(bucketIdem)
		if err != nil {
			return fmt.Errorf("migrate: create %s: %w", bucketIdem, err)
		}
		c := tx.Bucket(bucketQuestions).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			q, err := decodeQuestion(string(k), v)
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			for _, e := range indexOf(q) {
				if string(e.bucket) == string(bucketIdem) {
					if err := idem.Put(e.key, e.value); err != nil {
						return fmt.Errorf("migrate: %w", err)
					}
				}
			}
		}
	}
	if from < 3 {
		if err := migrateLearned(tx, time.Now().UTC()); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	if from < 4 {
		if err := buildListIndexes(tx, from >= 2); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	if from < 5 {
		if err := rebuildQuestionIndex(tx, bucketByReminder); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	if from >= 2 && from < 6 { // 1 → 2 built it with the other question indexes
		if err := rebuildQuestionIndex(tx, bucketByDueList); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	if from < 7 {
		if err := migrateListed(tx); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	if from < 8 {
		if err := migrateControl(tx); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	if from >= 2 && from < 9 { // 1 → 2 built runs_active with the runs
		if err := migrateOpen(tx); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	if from < 10 {
		if err := buildRollups(tx); err != nil { // every version before 10 (1 → 2 included)
			return fmt.Errorf("migrate: %w", err)
		}
	}
	if from < 11 {
		if err := migrateWebhooks(tx); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	return tx.Bucket(bucketMeta).Put(keySchema, u64(SchemaVersion))
}

// rebuildQuestionIndex empties the question index bucket and puts every
// question's entries in it (indexOf), in one pass over the questions.
func rebuildQuestionIndex(tx *bolt.Tx, bucket []byte) error {
	if tx.Bucket(bucket) != nil {
		if err := tx.DeleteBucket(bucket); err != nil {
			return fmt.Errorf("reset %s: %w", bucket, err)
		}
	}
	b, err := tx.CreateBucket(bucket)
	if err != nil {
		return fmt.Errorf("create %s: %w", bucket, err)
	}
	c := tx.Bucket(bucketQuestions).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		q, err := decodeQuestion(string(k), v)
		if err != nil {
			return err
		}
		for _, e := range indexOf(q) {
			if string(e.bucket) == string(bucket) {
				if err := b.Put(e.key, []byte{}); err != nil {
					return fmt.Errorf("put %s entry of question %s: %w", bucket, q.ID, err)
				}
			}
		}
	}
	return nil
}

// buildListIndexes builds schema 4's indexes from scratch: events_by_run
// from the event log and, with byFilter (1 → 2 built it already, with the
// other question indexes), by_filter from the questions.
func buildListIndexes(tx *bolt.Tx, byFilter bool) error {
	reset := func(name []byte) (*bolt.Bucket, error) {
		if tx.Bucket(name) != nil {
			if err := tx.DeleteBucket(name); err != nil {
				return nil, fmt.Errorf("reset %s: %w", name, err)
			}
		}
		b, err := tx.CreateBucket(name)
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", name, err)
		}
		return b, nil
	}
	byRun, err := reset(bucketEventsByRun)
	if err != nil {
		return err
	}
	c := tx.Bucket(bucketEvents).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		var ev struct {
			RunID string `json:"jobId"`
		}
		if err := json.Unmarshal(v, &ev); err != nil {
			return fmt.Errorf("decode event %x: %w", k, err)
		}
		if ev.RunID == "" || len(k) != 8 {
			continue
		}
		if err := byRun.Put(runEventKey(ev.RunID, binary.BigEndian.Uint64(k)), []byte{}); err != nil {
			return fmt.Errorf("put events_by_run entry of event %x: %w", k, err)
		}
	}
	if !byFilter {
		return nil
	}
	lists, err := reset(bucketByFilter)
	if err != nil {
		return err
	}
	c = tx.Bucket(bucketQuestions).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		q, err := decodeQuestion(string(k), v)
		if err != nil {
			return err
		}
		for _, e := range indexOf(q) {
			if string(e.bucket) == string(bucketByFilter) {
				if err := lists.Put(e.key, []byte{}); err != nil {
					return fmt.Errorf("put by_filter entry of question %s: %w", q.ID, err)
				}
			}
		}
	}
	return nil
}

// oldLearnedRule is a learned rule as schema 2 kept it, inside the policy.
type oldLearnedRule struct {
	ID        string      `json:"id"`
	OpType    hitl.OpType `json:"opType"`
	Resource  string      `json:"resource"`
	Agent     string      `json:"agent"`
	Effect    hitl.Effect `json:"effect"`
	CreatedBy string      `json:"createdBy"`
	CreatedAt *time.Time  `json:"createdAt"`
}

// migrateLearned moves the policy's learned rules into records. A rule
// keeps its id, agent, operation type and resource (the resource is now
// matched exactly: narrower than the old prefix match, never wider), and
// expires policy.DefaultLearnedTTL after it was made (after now when the
// file does not say when). Schema 2 only ever learned allow rules; any
// other effect cannot be a learned rule now and is dropped. Of two rules
// with the same key the later one in the list wins, as a put would.
func migrateLearned(tx *bolt.Tx, now time.Time) error {
	for _, name := range learnedBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
	}
	v := tx.Bucket(bucketMeta).Get(keyPolicy)
	if v == nil {
		return nil
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(v, &doc); err != nil {
		return fmt.Errorf("decode policy: %w", err)
	}
	raw, ok := doc["learned"]
	if !ok {
		return nil
	}
	var old []oldLearnedRule
	if err := json.Unmarshal(raw, &old); err != nil {
		return fmt.Errorf("decode the policy's learned rules: %w", err)
	}
	for _, o := range old {
		if o.Effect != hitl.EffectAllow && o.Effect != "" {
			continue
		}
		r := &hitl.LearnedRule{ID: o.ID, Agent: o.Agent, OpType: o.OpType, Resource: o.Resource, CreatedBy: o.CreatedBy, CreatedAt: now}
		if r.ID == "" {
			r.ID = uid.New("r_")
		}
		if o.CreatedAt != nil && !o.CreatedAt.IsZero() {
			r.CreatedAt = *o.CreatedAt
		}
		r.ExpiresAt = r.CreatedAt.Add(hitl.DefaultLearnedTTL)
		if err := putLearned(tx, r); err != nil {
			return fmt.Errorf("move learned rule %s: %w", r.ID, err)
		}
	}
	delete(doc, "learned")
	data, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("encode policy: %w", err)
	}
	if err := tx.Bucket(bucketMeta).Put(keyPolicy, data); err != nil {
		return fmt.Errorf("rewrite policy: %w", err)
	}
	return nil
}
