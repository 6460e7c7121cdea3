package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tamper edits a backend's audit records behind its back, directly in
// its database, as someone with access to the file or the tables could.
type Tamper interface {
	// Edit replaces the stored bytes of record seq by edit's result.
	Edit(t *testing.T, seq uint64, edit func([]byte) []byte)
	// Delete deletes record seq.
	Delete(t *testing.T, seq uint64)
	// Swap exchanges the stored records seq a and b.
	Swap(t *testing.T, a, b uint64)
}

// RunAuditTamper: verify passes on an untouched trail and fails, naming
// the record, after a record is edited, deleted or reordered directly in
// the database.
func RunAuditTamper(t *testing.T, open func(t *testing.T) (AuditBackend, Tamper)) {
	for _, tc := range []struct {
		name    string
		tamper  func(t *testing.T, tp Tamper)
		seq     uint64
		problem string
	}{
		{"untouched: it verifies", func(*testing.T, Tamper) {}, 0, ""},
		{"a record's actor edited", func(t *testing.T, tp Tamper) {
			tp.Edit(t, 3, func(b []byte) []byte { return bytes.Replace(b, []byte(`"api:w3"`), []byte(`"api:zz"`), 1) })
		}, 3, hitl.AuditChanged},
		{"a record's hash rewritten to match an edit", func(t *testing.T, tp Tamper) {
			tp.Edit(t, 3, func(b []byte) []byte {
				var r hitl.AuditRecord
				mustUnmarshal(t, b, &r)
				r.Actor = "api:zz"
				r.Hash = r.ComputeHash()
				return mustMarshal(t, r)
			})
		}, 3, hitl.AuditChanged},
		{"a record deleted", func(t *testing.T, tp Tamper) { tp.Delete(t, 4) }, 4, hitl.AuditRemoved},
		{"the newest record deleted", func(t *testing.T, tp Tamper) { tp.Delete(t, 6) }, 6, hitl.AuditRemoved},
		{"two records swapped", func(t *testing.T, tp Tamper) { tp.Swap(t, 2, 3) }, 2, hitl.AuditReordered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, tp := open(t)
			ctx := context.Background()
			for i := range 6 {
				require.NoError(t, st.AppendAudit(ctx, &hitl.AuditRecord{At: t0, Kind: hitl.AuditSignedIn, Actor: fmt.Sprintf("api:w%d", i+1)}))
			}
			tc.tamper(t, tp)
			_, b := verify(t, st)
			if tc.problem == "" {
				assert.Nil(t, b)
				return
			}
			require.NotNil(t, b, "the change is found")
			assert.Equal(t, tc.seq, b.Seq, b.Message)
			assert.Equal(t, tc.problem, b.Problem, b.Message)
		})
	}
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(b, v))
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
