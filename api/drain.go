package api

import (
	"net/http"
	"time"

	"github.com/hitlbot/hitl/fault"
)

// ShutdownRetryAfter is the Retry-After of the 503 a closing server
// answers: the long polls it lets go of and every request that arrives
// after Close. A restarted service is usually back by then.
const ShutdownRetryAfter = time.Second

// closing reports whether Close was called: the server takes no more
// work and answers what waits with errClosing.
func (s *Server) closing() bool { return s.base.Err() != nil }

// errClosing is the answer of a closing server: 503 unavailable with
// Retry-After and the JSON error body, which every client treats as "try
// again" (at the next replica, or once the service is back). Never a 2xx:
// a long poll let go by a restart has no result to report.
func errClosing() error {
	return &fault.Error{Code: fault.EUNAVAILABLE, Message: "the server is shutting down; retry", RetryAfter: ShutdownRetryAfter}
}

// clientGone reports whether a held request (a long poll, a held
// checkpoint) ends without an answer: only when its client went away
// while the server is not closing. A closing server answers every held
// request, even once the request's own context ends too (the process
// cancels them all when the shutdown's grace runs out).
func (s *Server) clientGone(r *http.Request) bool {
	return r.Context().Err() != nil && !s.closing()
}

// unlessClosing is err, or errClosing when the server is closing and the
// call failed (its wait was cut by Close, or by the request's context
// ending with the process).
func (s *Server) unlessClosing(err error) error {
	if err != nil && s.closing() {
		return errClosing()
	}
	return err
}
