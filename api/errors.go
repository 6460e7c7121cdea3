package api

import (
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"

	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
)

// writeError writes err as {"code","message"} with the status of its code.
// It is the one function that turns errors into HTTP responses. Errors that
// are not *fault.Error are internal: they are logged and read "internal
// error".
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var he *fault.Error
	if !errors.As(err, &he) {
		he = &fault.Error{Code: fault.EINTERNAL}
	}
	status, ok := wire.StatusOf[he.Code]
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
	writeJSON(w, status, wire.ErrorResponse{Code: he.Code, Message: he.Message, Status: he.Status, AnsweredBy: he.By, AnsweredAt: he.At})
}
