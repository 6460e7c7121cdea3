// Package fault is hitl's one error type and its codes.
//
// Every package returns a *Error with a code (EINVALID, ENOTFOUND,
// ECONFLICT …) and a message written for the person or agent that reads it;
// each edge translates the code in exactly one place (an HTTP status in
// package api, an ephemeral message in package slack, an exit code in
// cmd/hitl). Code and Message read any error: errors that are not *Error
// are internal, and their text is never shown.
//
// It is the lowest package of the vocabulary: the root package hitl and its
// sub-vocabularies import it, and it imports nothing of hitl's, so each
// sub-vocabulary can validate its own values without a cycle.
package fault
