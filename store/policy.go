package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

var keyPolicy = []byte("policy")

// PolicyState implements hitl.PolicyStore.
func (db *DB) PolicyState(ctx context.Context) (*hitl.PolicyState, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var st *hitl.PolicyState
	err := db.bolt.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get(keyPolicy)
		if v == nil {
			return nil
		}
		st = &hitl.PolicyState{}
		return json.Unmarshal(v, st)
	})
	if err != nil {
		return nil, fmt.Errorf("store: read policy: %w", err)
	}
	return st, nil
}

// PutPolicyState implements hitl.PolicyStore.
func (db *DB) PutPolicyState(ctx context.Context, st *hitl.PolicyState, evs ...*hitl.Event) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("store: encode policy: %w", err)
	}
	if err := db.write(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketMeta).Put(keyPolicy, data); err != nil {
			return err
		}
		return appendEvents(tx, evs)
	}); err != nil {
		return fmt.Errorf("store: write policy: %w", err)
	}
	return nil
}
