package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// getRecord decodes the JSON record under id in bucket into a new T (nil
// when there is none). The JSON decoder copies what it keeps, so the
// record outlives tx.
func getRecord[T any](tx *bolt.Tx, bucket, id []byte, what string) (*T, error) {
	v := tx.Bucket(bucket).Get(id)
	if v == nil {
		return nil, nil
	}
	r := new(T)
	if err := json.Unmarshal(v, r); err != nil {
		return nil, fmt.Errorf("decode %s %q: %w", what, id, err)
	}
	return r, nil
}

// pruneExpired deletes up to limit (256 when 0 or less) records whose
// expiry index (expiresAt ‖ id → "", in bucket expiry) has reached now:
// drop deletes the record of id with every index entry it has, the
// expiry entry included. It looks in a read transaction first, so that a
// prune with nothing expired writes nothing (an idle service writes
// nothing), and it counts the records drop reports gone.
func (db *DB) pruneExpired(expiry []byte, now time.Time, limit int, drop func(tx *bolt.Tx, key, id []byte) (bool, error)) (int, error) {
	if limit <= 0 {
		limit = 256
	}
	end := timeKey(now)
	expired := func(k []byte) bool { return len(k) >= 8 && binary.BigEndian.Uint64(k) <= end }
	due := false
	if err := db.bolt.View(func(tx *bolt.Tx) error {
		k, _ := tx.Bucket(expiry).Cursor().First()
		due = expired(k)
		return nil
	}); err != nil || !due {
		return 0, err
	}
	var n int
	err := db.write(func(tx *bolt.Tx) error {
		n = 0
		var keys [][]byte
		c := tx.Bucket(expiry).Cursor()
		for k, _ := c.First(); k != nil && len(keys) < limit && expired(k); k, _ = c.Next() {
			keys = append(keys, bytes.Clone(k))
		}
		for _, k := range keys {
			gone, err := drop(tx, k, k[8:])
			if err != nil {
				return err
			}
			if gone {
				n++
			}
		}
		return nil
	})
	return n, err
}
