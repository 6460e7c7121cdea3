// Package access owns who may do what: the rules every edge (HTTP, SSE,
// Slack, CLI, MCP, hooks, web) gets the same answer from. Access decides
// whether a principal may ask, answer, cancel, receive, steer, read,
// reassign or take a question, start or report on a run, sign in to the
// web inbox, and what belongs in a person's inbox. It is pure: no store,
// no clock. Its table tests have one row per rule (access_test.go,
// ownership_test.go in package service run them through the service).
package access
