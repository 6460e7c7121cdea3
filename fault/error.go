package fault

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Error codes. Every edge translates these in exactly one place: HTTP status
// in package api, an ephemeral message in package slack, an exit code in cmd.
const (
	EINVALID      = "invalid"      // the input is malformed or breaks a rule
	ENOTFOUND     = "not_found"    // no such question or run
	ECONFLICT     = "conflict"     // the question is no longer pending
	EUNAUTHORIZED = "unauthorized" // no or unknown credentials
	EFORBIDDEN    = "forbidden"    // known caller, not allowed to do this
	EREFUSED      = "refused"      // policy refuses the request (e.g. threshold 0)
	ERATELIMITED  = "rate_limited" // too many requests: retry after RetryAfter
	// ETOOMANYSTREAMS: the principal holds as many streams and long polls
	// as it may; retry after RetryAfter, or close one.
	ETOOMANYSTREAMS = "too_many_streams"
	ETOOLARGE       = "too_large"   // request body or field over its limit
	EUNAVAILABLE    = "unavailable" // the service is shutting down or a dependency is down
	EINTERNAL       = "internal"    // a bug or an I/O failure

	// Outcomes a waiting agent can check for (returned by clients and the CLI).
	ETIMEDOUT  = "timed_out" // the question timed out without a default
	ECANCELLED = "cancelled" // the question was cancelled
	// EDEADLINE: the caller's own wait ran out (a context deadline, a
	// client's wait timeout) while the question is still pending. The same
	// code in every client: docs/api.md#client-error-codes.
	EDEADLINE = "deadline_exceeded"
)

// Error is the one error type of hitl. Code is machine readable, Message is
// written for the person or agent that will read it.
type Error struct {
	Code    string
	Message string
	// Conflict details: how the question was settled (its status), by
	// whom and when.
	Status string
	By     string
	At     string
	// RetryAfter says when a rate_limited (or too_many_streams) request
	// may be retried.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	return fmt.Sprintf("hitl: %s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Code returns the code of err, EDEADLINE for a context whose deadline
// passed, EINTERNAL for other errors that are not *Error, and "" for nil.
func Code(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return EDEADLINE
	}
	return EINTERNAL
}

// Message returns the human message of err. Internal errors are not
// leaked: they read "internal error".
func Message(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the wait ran out (its deadline passed)"
	}
	return "internal error"
}
