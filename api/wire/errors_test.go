package wire

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hitlbot/hitl/fault"
)

// The error table is read both ways: a code the server writes and the
// client reads back round-trips, each code is written with one status
// and each status reads as one code.
func TestErrorTableRoundTrips(t *testing.T) {
	writes, reads := map[string]int{}, map[int]int{}
	for _, row := range errorTable {
		if row.writes {
			writes[row.code]++
		}
		if row.reads {
			reads[row.status]++
		}
		if row.writes && row.reads {
			assert.Equal(t, row.code, CodeOfStatus(StatusOf[row.code]), "code %s round-trips through %d", row.code, row.status)
		}
	}
	for code, n := range writes {
		assert.Equal(t, 1, n, "code %s is written with one status", code)
	}
	for status, n := range reads {
		assert.Equal(t, 1, n, "status %d reads as one code", status)
	}
}

// Every status the server writes and a proxy may write reads back as the
// code the client has always given it.
func TestCodeOfStatus(t *testing.T) {
	for status, want := range map[int]string{
		http.StatusBadRequest:            fault.EINVALID,
		http.StatusUnauthorized:          fault.EUNAUTHORIZED,
		http.StatusForbidden:             fault.EFORBIDDEN,
		http.StatusNotFound:              fault.ENOTFOUND,
		http.StatusMethodNotAllowed:      fault.EINTERNAL,
		http.StatusConflict:              fault.ECONFLICT,
		http.StatusRequestEntityTooLarge: fault.ETOOLARGE,
		http.StatusUnsupportedMediaType:  CodeUnsupportedMediaType,
		http.StatusUnprocessableEntity:   fault.EREFUSED,
		http.StatusTooManyRequests:       fault.ERATELIMITED,
		http.StatusInternalServerError:   fault.EINTERNAL,
		http.StatusBadGateway:            fault.EUNAVAILABLE,
		http.StatusServiceUnavailable:    fault.EUNAVAILABLE,
		http.StatusGatewayTimeout:        fault.EUNAVAILABLE,
		http.StatusTeapot:                fault.EINTERNAL,
		http.StatusOK:                    fault.EINTERNAL,
	} {
		assert.Equal(t, want, CodeOfStatus(status), "status %d", status)
	}
	for code, want := range map[string]int{
		fault.ETOOMANYSTREAMS: http.StatusTooManyRequests,
		fault.ETIMEDOUT:       http.StatusConflict,
		fault.ECANCELLED:      http.StatusConflict,
		CodeMethodNotAllowed:  http.StatusMethodNotAllowed,
	} {
		assert.Equal(t, want, StatusOf[code], "code %s", code)
	}
}
