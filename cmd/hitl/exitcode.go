package main

import (
	"errors"

	"github.com/hitlbot/hitl"
)

// Exit codes: the one table, also in the usage text and README.md.
const (
	exitOK          = 0   // answered, approved, or done
	exitFailure     = 1   // service unreachable, auth failure, internal error
	exitUsage       = 2   // bad flags or arguments, invalid question or answer
	exitDenied      = 3   // the approval was denied
	exitTimedOut    = 4   // timed out with no default
	exitCancelled   = 5   // the question was cancelled
	exitConflict    = 6   // already answered (hitl answer)
	exitNotFound    = 7   // no such question or run
	exitRateLimited = 8   // too many questions: the rate limit (hitl ask --no-wait)
	exitForbidden   = 9   // the token may not do this (scope or rule)
	exitRefused     = 10  // refused: the run's interaction threshold is 0 (decide yourself)
	exitBadState    = 11  // the run is not in a state for this command (invalid_state), or its agent cannot carry it out (unsupported)
	exitDuplicate   = 12  // the same request is still being carried out (duplicate)
	exitNeedsInput  = 101 // --no-wait: the question waits for a person (docs/protocol.md#exit-code-101)
	exitInterrupted = 130 // Ctrl+C: the question stays pending
)

// exitCode translates an error into the exit code: the only place that does.
func exitCode(err error) int {
	switch hitl.ErrorCode(err) {
	case "":
		return exitOK
	case hitl.EINVALID, hitl.ETOOLARGE:
		return exitUsage
	case hitl.ETIMEDOUT:
		return exitTimedOut
	case hitl.ECANCELLED:
		return exitCancelled
	case hitl.ECONFLICT:
		return conflictCode(err)
	case hitl.ENOTFOUND:
		return exitNotFound
	case hitl.ERATELIMITED, hitl.ETOOMANYSTREAMS:
		return exitRateLimited
	case hitl.EFORBIDDEN:
		return exitForbidden
	case hitl.EREFUSED:
		return exitRefused
	default:
		return exitFailure
	}
}

// conflictCode is the exit code of acting on a settled question: how it
// was settled (a timed-out question answered late exits 4, not 6).
func conflictCode(err error) int {
	var e *hitl.Error
	if errors.As(err, &e) {
		switch e.Status {
		case hitl.StatusTimeout:
			return exitTimedOut
		case hitl.StatusCancelled:
			return exitCancelled
		}
	}
	return exitConflict
}

// resultCode translates a failed RESULT's code (docs/protocol.md#steering) into the exit
// code.
func resultCode(code string) int {
	switch code {
	case hitl.CodeNotFound:
		return exitNotFound
	case hitl.CodeInvalidState, hitl.CodeUnsupported:
		return exitBadState
	case hitl.CodeDuplicate:
		return exitDuplicate
	case hitl.CodeBadRequest:
		return exitUsage
	case hitl.CodeForbidden:
		return exitForbidden
	}
	return exitFailure
}
