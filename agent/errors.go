package agent

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hitlbot/hitl/fault"
)

// Codes of the HTTP edge itself, beside hitl's.
const (
	codeMethodNotAllowed     = "method_not_allowed"
	codeUnsupportedMediaType = "unsupported_media_type" // a body that is not JSON
)

// statusOf maps an error code to its HTTP status. It is the only place
// where hitl's codes meet HTTP statuses on the server side.
var statusOf = map[string]int{
	fault.EINVALID:           http.StatusBadRequest,
	fault.ENOTFOUND:          http.StatusNotFound,
	fault.ECONFLICT:          http.StatusConflict,
	fault.EUNAUTHORIZED:      http.StatusUnauthorized,
	fault.EFORBIDDEN:         http.StatusForbidden,
	fault.EREFUSED:           http.StatusUnprocessableEntity,
	fault.ERATELIMITED:       http.StatusTooManyRequests,
	fault.ETOOMANYSTREAMS:    http.StatusTooManyRequests,
	fault.ETOOLARGE:          http.StatusRequestEntityTooLarge,
	fault.EUNAVAILABLE:       http.StatusServiceUnavailable,
	fault.ETIMEDOUT:          http.StatusConflict,
	fault.ECANCELLED:         http.StatusConflict,
	fault.EINTERNAL:          http.StatusInternalServerError,
	codeMethodNotAllowed:     http.StatusMethodNotAllowed,
	codeUnsupportedMediaType: http.StatusUnsupportedMediaType,
}

// writeError writes err as {"code","message"} with the status of its code.
// It is the one function that turns errors into HTTP responses. Errors that
// are not *fault.Error are internal: they are logged and read "internal
// error".
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var he *fault.Error
	if !errors.As(err, &he) {
		he = &fault.Error{Code: fault.EINTERNAL}
	}
	status, ok := statusOf[he.Code]
	if !ok || he.Code == fault.EINTERNAL {
		log.ErrorContext(r.Context(), "internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		status, he = http.StatusInternalServerError, &fault.Error{Code: fault.EINTERNAL, Message: "internal error"}
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="hitl"`)
	}
	if he.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(he.RetryAfter.Seconds()))))
	}
	writeJSON(w, status, errorResponse{Code: he.Code, Message: he.Message, Status: he.Status, AnsweredBy: he.By, AnsweredAt: he.At})
}

// codeOfStatus guesses an error code from a status, for error bodies that
// are not hitl's JSON (a proxy's 502 page, say).
func codeOfStatus(status int) string {
	switch {
	case status == http.StatusBadRequest:
		return fault.EINVALID
	case status == http.StatusUnauthorized:
		return fault.EUNAUTHORIZED
	case status == http.StatusForbidden:
		return fault.EFORBIDDEN
	case status == http.StatusNotFound:
		return fault.ENOTFOUND
	case status == http.StatusConflict:
		return fault.ECONFLICT
	case status == http.StatusRequestEntityTooLarge:
		return fault.ETOOLARGE
	case status == http.StatusUnprocessableEntity:
		return fault.EREFUSED
	case status == http.StatusTooManyRequests:
		return fault.ERATELIMITED
	case status == http.StatusUnsupportedMediaType:
		return codeUnsupportedMediaType
	case status == http.StatusBadGateway, status == http.StatusServiceUnavailable, status == http.StatusGatewayTimeout:
		return fault.EUNAVAILABLE
	}
	return fault.EINTERNAL
}

// decodeError turns an error response back into the *fault.Error the server
// wrote, so that fault.Code works across the wire. Retry-After (on
// 429 and 503, from hitl or a proxy) becomes RetryAfter, so callers know
// how long to wait.
func decodeError(resp *http.Response) *fault.Error {
	e := errorOf(resp)
	e.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	return e
}

func errorOf(resp *http.Response) *fault.Error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var body errorResponse
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
	return fault.Errorf(codeOfStatus(resp.StatusCode), "HTTP %d: %s", resp.StatusCode, msg)
}

// retryAfter reads a Retry-After header: whole seconds, or an HTTP date
// (as of now). Anything else, or a time past, is 0.
func retryAfter(v string, now time.Time) time.Duration {
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
