package main

import (
	"errors"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// Exit codes: the one table, also in the usage text and README.md.
const (
	exitOK          = 0   // answered, approved, or done
	exitFailure     = 1   // service unreachable, auth failure, internal error; hitl doctor: a check found a problem
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
	exitAuditBroken = 13  // hitl audit verify: the audit trail's chain is broken
	exitNeedsInput  = 101 // --no-wait: the question waits for a person (docs/protocol.md#exit-code-101)
	exitInterrupted = 130 // Ctrl+C: the question stays pending
)

// exitCode translates an error into the exit code: the only place that does.
func exitCode(err error) int {
	switch fault.Code(err) {
	case "":
		return exitOK
	case fault.EINVALID, fault.ETOOLARGE:
		return exitUsage
	case fault.ETIMEDOUT:
		return exitTimedOut
	case fault.ECANCELLED:
		return exitCancelled
	case fault.ECONFLICT:
		return conflictCode(err)
	case fault.ENOTFOUND:
		return exitNotFound
	case fault.ERATELIMITED, fault.ETOOMANYSTREAMS:
		return exitRateLimited
	case fault.EFORBIDDEN:
		return exitForbidden
	case fault.EREFUSED:
		return exitRefused
	default:
		return exitFailure
	}
}

// conflictCode is the exit code of acting on a settled question: how it
// was settled (a timed-out question answered late exits 4, not 6).
func conflictCode(err error) int {
	var e *fault.Error
	if errors.As(err, &e) {
		switch hitl.Status(e.Status) {
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
	case steer.CodeNotFound:
		return exitNotFound
	case steer.CodeInvalidState, steer.CodeUnsupported:
		return exitBadState
	case steer.CodeDuplicate:
		return exitDuplicate
	case steer.CodeBadRequest:
		return exitUsage
	case steer.CodeForbidden:
		return exitForbidden
	}
	return exitFailure
}
