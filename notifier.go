package hitl

// Notifier wakes waiters once a change is durable: the Service publishes
// after every commit, and waiters (Wait, WaitRun, readers of the event
// log) block on it instead of polling the store. It carries no state:
// a wake-up says "read again", never what changed.
//
// The contract, which one process (package notify) and several replicas
// (PostgreSQL LISTEN/NOTIFY) both keep:
//
//   - A wake-up may be spurious; a woken waiter re-reads the store.
//   - A wake-up is never lost: a change published after Watch (or Changed)
//     returned closes that channel. So a waiter watches first and reads
//     second; a change it did not read wakes it.
//   - An implementation that may have missed changes (a connection lost
//     and regained) wakes every waiter.
type Notifier interface {
	// Publish announces that id (a question, or a run's key) changed and
	// wakes its watchers and every Changed channel; "" wakes only the
	// Changed channels. It is called after the change commits.
	Publish(id string)
	// Watch returns a channel closed at the next change of id, and a
	// cancel that releases it; cancel may be called more than once and
	// after the channel closed.
	Watch(id string) (<-chan struct{}, func())
	// Changed returns a channel closed at the next change of anything.
	Changed() <-chan struct{}
}
