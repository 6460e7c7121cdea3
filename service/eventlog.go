package service

import (
	"context"

	"github.com/hitlbot/hitl"
)

// Log reads the event log from a cursor and says when it changed.
type Log struct {
	store    EventReader
	notifier hitl.Notifier
}

// EventReader reads the event log.
type EventReader interface {
	Events(ctx context.Context, after uint64, limit int) ([]*hitl.Event, error)
	RunEvents(ctx context.Context, runID string, after uint64, limit int) (evs []*hitl.Event, through uint64, err error)
	LastSeq(ctx context.Context) (uint64, error)
}

// NewLog returns the event log over store; n says when it changed.
func NewLog(store EventReader, n hitl.Notifier) *Log { return &Log{store: store, notifier: n} }

var _ hitl.EventLog = (*Log)(nil)
