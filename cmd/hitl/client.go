package main

import (
	"os/user"
	"strings"

	"github.com/hitlbot/hitl/client"
)

// newClient returns an API client for HITL_URL and HITL_TOKEN.
func newClient(e *env) *client.Client {
	url := strings.TrimRight(e.getenv("HITL_URL"), "/")
	if url == "" {
		url = "http://127.0.0.1:7070"
	}
	return client.NewClient(url, e.getenv("HITL_TOKEN"), client.WithUser(userName(e)))
}

func userName(e *env) string {
	if u := e.getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "unknown"
}
