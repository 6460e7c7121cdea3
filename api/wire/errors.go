package wire

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hitlbot/hitl/fault"
)

// Codes of the HTTP edge itself, beside hitl's.
const (
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeUnsupportedMediaType = "unsupported_media_type" // a body that is not JSON
)

// errorTable is the one table where hitl's codes meet HTTP statuses, read
// both ways: the server writes a code with the status of its row marked
// writes (StatusOf), and the client reads a status back as the code of its
// row marked reads (CodeOfStatus), for error bodies that are not hitl's
// JSON (a proxy's 502 page, say). A status with no reads row reads as
// fault.EINTERNAL.
var errorTable = []struct {
	code          string
	status        int
	writes, reads bool
}{
	{fault.EINVALID, http.StatusBadRequest, true, true},
	{fault.ENOTFOUND, http.StatusNotFound, true, true},
	{fault.ECONFLICT, http.StatusConflict, true, true},
	{fault.EUNAUTHORIZED, http.StatusUnauthorized, true, true},
	{fault.EFORBIDDEN, http.StatusForbidden, true, true},
	{fault.EREFUSED, http.StatusUnprocessableEntity, true, true},
	{fault.ERATELIMITED, http.StatusTooManyRequests, true, true},
	{fault.ETOOMANYSTREAMS, http.StatusTooManyRequests, true, false},
	{fault.ETOOLARGE, http.StatusRequestEntityTooLarge, true, true},
	{fault.EUNAVAILABLE, http.StatusServiceUnavailable, true, true},
	{fault.EUNAVAILABLE, http.StatusBadGateway, false, true},
	{fault.EUNAVAILABLE, http.StatusGatewayTimeout, false, true},
	{fault.ETIMEDOUT, http.StatusConflict, true, false},
	{fault.ECANCELLED, http.StatusConflict, true, false},
	{fault.EINTERNAL, http.StatusInternalServerError, true, true},
	{CodeMethodNotAllowed, http.StatusMethodNotAllowed, true, false},
	{CodeUnsupportedMediaType, http.StatusUnsupportedMediaType, true, true},
}

// StatusOf maps an error code to the HTTP status the server writes for it
// (the errorTable's writes rows); codeOf maps a status back to its code
// (its reads rows).
var StatusOf, codeOf = func() (map[string]int, map[int]string) {
	s, c := map[string]int{}, map[int]string{}
	for _, row := range errorTable {
		if row.writes {
			s[row.code] = row.status
		}
		if row.reads {
			c[row.status] = row.code
		}
	}
	return s, c
}()

// CodeOfStatus guesses an error code from a status, for error bodies that
// are not hitl's JSON (a proxy's 502 page, say): the errorTable read back.
func CodeOfStatus(status int) string {
	if code, ok := codeOf[status]; ok {
		return code
	}
	return fault.EINTERNAL
}

// DecodeError turns an error response back into the *fault.Error the server
// wrote, so that fault.Code works across the wire. Retry-After (on
// 429 and 503, from hitl or a proxy) becomes RetryAfter, so callers know
// how long to wait.
func DecodeError(resp *http.Response) *fault.Error {
	e := errorOf(resp)
	e.RetryAfter = RetryAfter(resp.Header.Get("Retry-After"), time.Now())
	return e
}

func errorOf(resp *http.Response) *fault.Error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var body ErrorResponse
	if json.Unmarshal(b, &body) == nil && body.Code != "" {
		return &fault.Error{Code: body.Code, Message: body.Message, Status: body.Status, By: body.AnsweredBy, At: body.AnsweredAt}
	}
	msg := strings.TrimSpace(string(b))
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return fault.Errorf(CodeOfStatus(resp.StatusCode), "HTTP %d: %s", resp.StatusCode, msg)
}

// RetryAfter reads a Retry-After header: whole seconds, or an HTTP date
// (as of now). Anything else, or a time past, is 0.
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		switch {
		case n <= 0:
			return 0
		case n > math.MaxInt64/int64(time.Second):
			return math.MaxInt64
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
