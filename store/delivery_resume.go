package store

import (
	"encoding/binary"
	"sync"

	"github.com/hitlbot/hitl"
	bolt "go.etcd.io/bbolt"
)

// resumes marks the deliveries an earlier process may have started: those
// queued when this process opened the file. A process killed between the
// platform's taking a post and recording it left the head of that
// target's queue in doubt, so NextDelivery hands each target's first such
// delivery out Resumed, once; what this process queues itself never is.
type resumes struct {
	below uint64 // the last delivery Seq queued at open

	mu     sync.Mutex
	handed map[string]bool // targets whose first delivery was handed out
}

// openResumes reads the last queued delivery's Seq.
func openResumes(bdb *bolt.DB) (*resumes, error) {
	r := &resumes{handed: map[string]bool{}}
	err := bdb.View(func(tx *bolt.Tx) error {
		if k, _ := tx.Bucket(bucketSlackTasks).Cursor().Last(); len(k) == 8 {
			r.below = binary.BigEndian.Uint64(k)
		}
		return nil
	})
	return r, err
}

// mark sets d.Resumed when d is the first delivery of its target this
// process hands out and was queued before it opened the file.
func (r *resumes) mark(d *hitl.Delivery) {
	if r == nil || d.Seq > r.below {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.handed[d.Target] {
		r.handed[d.Target] = true
		d.Resumed = true
	}
}
