package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// Exit codes: the one table (exitCodeWords says each in the usage text;
// docs/cli.md's table, checked against it, says each in full).
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

// exitCodeWords are the exit codes in a few words each, in order: the
// usage text's list (exitCodesText). TestExitCodeTable holds it to the
// constants above and to docs/cli.md.
var exitCodeWords = []struct {
	code  int
	words string
}{
	{exitOK, "answered/approved"}, {exitFailure, "error"}, {exitUsage, "usage"}, {exitDenied, "denied"},
	{exitTimedOut, "timed out"}, {exitCancelled, "cancelled"}, {exitConflict, "already answered"},
	{exitNotFound, "not found"}, {exitRateLimited, "rate limited"}, {exitForbidden, "forbidden"},
	{exitRefused, "refused (interaction threshold 0)"}, {exitBadState, "invalid state"},
	{exitDuplicate, "duplicate request"}, {exitAuditBroken, "audit trail broken"},
	{exitNeedsInput, "needs input"}, {exitInterrupted, "interrupted"},
}

// exitCodesText is the usage text's paragraph of exit codes, wrapped at
// 80 columns.
func exitCodesText() string {
	var b, line strings.Builder
	line.WriteString("Exit codes:")
	for i, c := range exitCodeWords {
		w := fmt.Sprintf(" %d %s", c.code, c.words)
		if i < len(exitCodeWords)-1 {
			w += ","
		} else {
			w += "."
		}
		if line.Len()+len(w) > 80 {
			b.WriteString(line.String() + "\n")
			line.Reset()
			w = w[1:]
		}
		line.WriteString(w)
	}
	b.WriteString(line.String() + "\n")
	return b.String()
}

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
