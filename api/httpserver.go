package api

import (
	"context"
	"net"
	"net/http"
	"time"
)

// Timeouts of the http.Server NewHTTPServer builds.
const (
	// ReadHeaderTimeout bounds reading a request's headers: a client that
	// opens connections and trickles headers holds nothing for long.
	ReadHeaderTimeout = 10 * time.Second
	// ReadTimeout bounds reading a whole request, body included. Once the
	// body is read the deadline is lifted, so long polls and streams are
	// not cut by it.
	ReadTimeout = time.Minute
	// IdleTimeout closes a keep-alive connection unused this long.
	IdleTimeout = 2 * time.Minute
	// MaxHeaderBytes bounds a request's headers.
	MaxHeaderBytes = 64 << 10
)

// NewHTTPServer returns the http.Server to serve h (usually a *Server)
// with: bounded header and body reads, idle connections closed, and no
// WriteTimeout, because a long poll holds its answer for up to MaxWait and
// the SSE stream never ends; those set their own write deadlines instead
// (a long poll its wait plus a margin, the stream StreamWriteTimeout per
// write). base, when not nil, is the http.Server's BaseContext.
func NewHTTPServer(h http.Handler, base func(net.Listener) context.Context) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		BaseContext:       base,
	}
}
