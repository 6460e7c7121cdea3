package notify

// Watching is how many ids have watchers, and how many channels wait.
func Watching(l *Local) (ids, chans int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, set := range l.watchers {
		chans += len(set)
	}
	return len(l.watchers), chans
}
