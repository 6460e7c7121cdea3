package api

import (
	"testing"

	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseControlRequest: the steering protocol's REQUEST as its field table has it;
// what the wire cannot carry is refused here, what a field holds is the
// root's to check (TestControlRequestFields, and the HTTP tests' RESULTs).
func TestParseControlRequest(t *testing.T) {
	ok := `{"schema":0,"type":"REQUEST","request_id":"req-pause-001","command":"pause","target":{"run_id":"loop-1703123456-12345","issue_id":"auth-123"},"timestamp":"2024-12-28T10:00:00Z","payload":{}}`
	m, err := parseControlRequest([]byte(ok))
	require.NoError(t, err)
	assert.Equal(t, "auth-123", m.Target.IssueID)
	assert.Equal(t, steer.CommandPause, m.Command)
	for name, body := range map[string]string{
		"missing schema":   `{"type":"REQUEST","request_id":"r","command":"pause","target":{"run_id":"x"},"timestamp":"2024-12-28T10:00:00Z","payload":{}}`,
		"schema 1":         `{"schema":1,"type":"REQUEST","request_id":"r","command":"pause","target":{"run_id":"x"},"timestamp":"2024-12-28T10:00:00Z","payload":{}}`,
		"an ACK":           `{"schema":0,"type":"ACK","request_id":"r","command":"pause","target":{"run_id":"x"},"timestamp":"2024-12-28T10:00:00Z","payload":{}}`,
		"no timestamp":     `{"schema":0,"type":"REQUEST","request_id":"r","command":"pause","target":{"run_id":"x"},"payload":{}}`,
		"no payload":       `{"schema":0,"type":"REQUEST","request_id":"r","command":"pause","target":{"run_id":"x"},"timestamp":"2024-12-28T10:00:00Z"}`,
		"an unknown field": `{"schema":0,"type":"REQUEST","request_id":"r","command":"pause","target":{"run_id":"x"},"timestamp":"2024-12-28T10:00:00Z","payload":{},"x":1}`,
		"a bad timestamp":  `{"schema":0,"type":"REQUEST","request_id":"r","command":"pause","target":{"run_id":"x"},"timestamp":"yesterday","payload":{}}`,
		"not JSON":         `pause loop-1`,
	} {
		t.Run(name+" is a bad request", func(t *testing.T) {
			_, err := parseControlRequest([]byte(body))
			require.Equal(t, fault.EINVALID, fault.Code(err))
		})
	}
}
