package api

import (
	"mime"
	"net"
	"net/http"
	"strings"

	"github.com/hitlbot/hitl/api/wire"
	"github.com/hitlbot/hitl/fault"
)

// checkLoopback guards a server without tokens, which trusts whatever runs
// on the machine, from what a web page in a browser on that machine can
// send: a request to a name that only resolves to 127.0.0.1 today (DNS
// rebinding: the Host is not a loopback name), a request from another
// origin (a cross-site fetch or form carries Origin), and a state-changing
// request a form can send without a preflight (text/plain, form
// encodings, or no body at all: not declared JSON).
// The CLI and the Go client send none of these.
func checkLoopback(r *http.Request) error {
	if !loopbackHost(r.Host) {
		return fault.Errorf(fault.EFORBIDDEN,
			"this hitl server has no tokens, so it answers only requests addressed to localhost or a loopback address, not %q: use http://127.0.0.1:PORT, or configure tokens to serve other hosts", r.Host)
	}
	if origin, ok := r.Header["Origin"]; ok {
		if len(origin) != 1 || !strings.EqualFold(origin[0], "http://"+r.Host) {
			return fault.Errorf(fault.EFORBIDDEN,
				"this hitl server has no tokens, so it refuses requests from web pages (Origin %q): call it from a program (the hitl CLI, the SDK, curl) without an Origin header, or configure tokens", strings.Join(origin, ", "))
		}
	}
	if changesState(r.Method) {
		// Body or not: a page can send a bodyless form post without a
		// preflight, but not one that says it is JSON.
		ct := r.Header.Get("Content-Type")
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return fault.Errorf(wire.CodeUnsupportedMediaType,
				"a %s to this hitl server (no tokens) must be sent with Content-Type: application/json, body or not, not %q", r.Method, ct)
		}
	}
	return nil
}

// changesState reports whether method may change state: anything but
// GET, HEAD and OPTIONS.
func changesState(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// loopbackHost reports whether host (a Host header, with or without a
// port) is localhost or a loopback address.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
