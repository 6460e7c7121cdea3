package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	bolt "go.etcd.io/bbolt"
)

// Learned rules are records of their own: the rule under its id and three
// indexes, all written in the transaction that writes the rule.
var (
	bucketLearned         = []byte("learned")           // id → rule JSON
	bucketLearnedByKey    = []byte("learned_by_key")    // learnedKey(agent, opType, resource) → id
	bucketLearnedByAgent  = []byte("learned_by_agent")  // agentPrefix(agent) ‖ id → ""
	bucketLearnedByExpiry = []byte("learned_by_expiry") // expiresAt ‖ id → ""
)

// learnedBuckets are the learned rules' buckets, record first.
var learnedBuckets = [][]byte{bucketLearned, bucketLearnedByKey, bucketLearnedByAgent, bucketLearnedByExpiry}

// lenPrefixed appends s to k preceded by its length (uvarint), so that a
// sequence of such fields decodes one way only: two different triples never
// make the same key, whatever bytes (0x00 included) they hold.
func lenPrefixed(k []byte, s string) []byte {
	k = binary.AppendUvarint(k, uint64(len(s)))
	return append(k, s...)
}

// learnedKey is the learned_by_key key of an agent's exact operation:
// len ‖ agent ‖ len ‖ opType ‖ resource (the last field needs no length).
func learnedKey(key hitl.LearnedRuleKey) []byte {
	k := make([]byte, 0, 2*binary.MaxVarintLen64+len(key.Agent)+len(key.OpType)+len(key.Resource))
	k = lenPrefixed(k, key.Agent)
	k = lenPrefixed(k, string(key.OpType))
	return append(k, key.Resource...)
}

// agentPrefix is the learned_by_agent prefix of every rule of agent.
func agentPrefix(agent string) []byte {
	return lenPrefixed(make([]byte, 0, binary.MaxVarintLen64+len(agent)+24), agent)
}

// learnedIndexOf lists the index entries of r.
func learnedIndexOf(r *hitl.LearnedRule) []indexEntry {
	return []indexEntry{
		{bucketLearnedByKey, learnedKey(r.Key()), []byte(r.ID)},
		{bucketLearnedByAgent, append(agentPrefix(r.Agent), r.ID...), nil},
		{bucketLearnedByExpiry, timeIDKey(r.ExpiresAt, r.ID), nil},
	}
}

// getLearned decodes rule id (nil when there is none).
func getLearned(tx *bolt.Tx, id []byte) (*hitl.LearnedRule, error) {
	return getRecord[hitl.LearnedRule](tx, bucketLearned, id, "learned rule")
}

// deleteLearned deletes rule r and its index entries. An index entry that
// now belongs to another rule (the key's, after a replace) is left alone.
func deleteLearned(tx *bolt.Tx, r *hitl.LearnedRule) error {
	for _, e := range learnedIndexOf(r) {
		b := tx.Bucket(e.bucket)
		if e.value != nil && !bytes.Equal(b.Get(e.key), e.value) {
			continue
		}
		if err := b.Delete(e.key); err != nil {
			return fmt.Errorf("delete %s entry of learned rule %s: %w", e.bucket, r.ID, err)
		}
	}
	if err := tx.Bucket(bucketLearned).Delete([]byte(r.ID)); err != nil {
		return fmt.Errorf("delete learned rule %s: %w", r.ID, err)
	}
	return nil
}

// putLearned stores r with its indexes, first deleting the rule its key
// holds and any earlier version of r itself (with their index entries).
func putLearned(tx *bolt.Tx, r *hitl.LearnedRule) error {
	if r.ID == "" {
		return fault.Errorf(fault.EINVALID, "a learned rule needs an id")
	}
	key := learnedKey(r.Key())
	if old := tx.Bucket(bucketLearnedByKey).Get(key); old != nil && string(old) != r.ID {
		prev, err := getLearned(tx, old)
		if err != nil {
			return err
		}
		if prev != nil {
			if err := deleteLearned(tx, prev); err != nil {
				return err
			}
		}
	}
	prev, err := getLearned(tx, []byte(r.ID))
	if err != nil {
		return err
	}
	if prev != nil {
		if err := deleteLearned(tx, prev); err != nil {
			return err
		}
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode learned rule %s: %w", r.ID, err)
	}
	if err := tx.Bucket(bucketLearned).Put([]byte(r.ID), data); err != nil {
		return fmt.Errorf("put learned rule %s: %w", r.ID, err)
	}
	for _, e := range learnedIndexOf(r) {
		value := e.value
		if value == nil {
			value = []byte{}
		}
		if err := tx.Bucket(e.bucket).Put(e.key, value); err != nil {
			return fmt.Errorf("put %s entry of learned rule %s: %w", e.bucket, r.ID, err)
		}
	}
	return nil
}

// PutLearnedRule implements hitl.PolicyStore: one write transaction replaces the
// rule the key holds (record and index entries) with r.
func (db *DB) PutLearnedRule(ctx context.Context, r *hitl.LearnedRule, evs ...*hitl.Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r == nil || r.ID == "" {
		return fault.Errorf(fault.EINVALID, "a learned rule needs an id")
	}
	if err := db.write(func(tx *bolt.Tx) error {
		if err := putLearned(tx, r); err != nil {
			return err
		}
		return appendEvents(tx, evs)
	}); err != nil {
		return fmt.Errorf("store: put learned rule %s: %w", r.ID, err)
	}
	return nil
}

// LearnedRule implements hitl.PolicyStore: one index lookup and one get.
func (db *DB) LearnedRule(ctx context.Context, key hitl.LearnedRuleKey) (*hitl.LearnedRule, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var r *hitl.LearnedRule
	err := db.bolt.View(func(tx *bolt.Tx) error {
		id := tx.Bucket(bucketLearnedByKey).Get(learnedKey(key))
		if id == nil {
			return nil
		}
		var err error
		r, err = getLearned(tx, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: read learned rule: %w", err)
	}
	return r, nil
}

// DeleteLearnedRule implements hitl.PolicyStore.
func (db *DB) DeleteLearnedRule(ctx context.Context, id string, evOf ...func(*hitl.LearnedRule) *hitl.Event) (*hitl.LearnedRule, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var gone *hitl.LearnedRule
	err := db.write(func(tx *bolt.Tx) error {
		var err error
		if gone, err = getLearned(tx, []byte(id)); err != nil || gone == nil {
			return err // nothing to delete: nothing is written
		}
		if err := deleteLearned(tx, gone); err != nil {
			return err
		}
		for _, f := range evOf {
			if err := appendEvents(tx, []*hitl.Event{f(gone)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: delete learned rule %s: %w", id, err)
	}
	if gone == nil {
		return nil, fault.Errorf(fault.ENOTFOUND, "no learned rule %s", id)
	}
	return gone, nil
}

// LearnedRules implements hitl.PolicyStore: a page in id order, read from the
// records or, for one agent, from the agent index. The cursor is the last
// id of the previous page.
func (db *DB) LearnedRules(ctx context.Context, f hitl.LearnedRuleFilter) (hitl.LearnedRulePage, error) {
	if err := ctx.Err(); err != nil {
		return hitl.LearnedRulePage{}, err
	}
	limit := f.PageSize()
	page := hitl.LearnedRulePage{Rules: []*hitl.LearnedRule{}}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var (
			c      *bolt.Cursor
			prefix []byte
		)
		if f.Agent != "" {
			c, prefix = tx.Bucket(bucketLearnedByAgent).Cursor(), agentPrefix(f.Agent)
		} else {
			c, prefix = tx.Bucket(bucketLearned).Cursor(), []byte{}
		}
		start := append(bytes.Clone(prefix), f.Cursor...)
		k, _ := c.Seek(start)
		if f.Cursor != "" && bytes.Equal(k, start) {
			k, _ = c.Next()
		}
		for ; k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			if len(page.Rules) == limit {
				page.NextCursor = page.Rules[limit-1].ID
				return nil
			}
			r, err := getLearned(tx, k[len(prefix):])
			if err != nil {
				return err
			}
			if r == nil {
				return fmt.Errorf("index entry %q has no learned rule", k)
			}
			page.Rules = append(page.Rules, r)
		}
		return nil
	})
	if err != nil {
		return hitl.LearnedRulePage{}, fmt.Errorf("store: list learned rules: %w", err)
	}
	return page, nil
}

// PruneLearnedRules implements hitl.PolicyStore: it walks the expiry index from
// the earliest expiry up to now.
func (db *DB) PruneLearnedRules(ctx context.Context, now time.Time, limit int) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n, err := db.pruneExpired(bucketLearnedByExpiry, now, limit, func(tx *bolt.Tx, key, id []byte) (bool, error) {
		r, err := getLearned(tx, id)
		if err != nil {
			return false, err
		}
		if r == nil {
			// A stray entry (Check reports them) must not stop retention:
			// it goes, and counts for nothing.
			return false, tx.Bucket(bucketLearnedByExpiry).Delete(key)
		}
		return true, deleteLearned(tx, r)
	})
	if err != nil {
		return 0, fmt.Errorf("store: prune learned rules: %w", err)
	}
	return n, nil
}
