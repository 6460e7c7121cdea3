// Package auth is the vocabulary of who acts: a Principal (a token, a
// Slack user, the local person, the system), the scopes a token is given,
// and the Actions the rules decide (ask, answer, steer, audit …).
//
// It says who is who, never who may: the rules that decide live once, in
// package access. It sits below the root package, which imports it for the
// events and records that name their actor.
package auth
