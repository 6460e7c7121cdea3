package auth

import "context"

// Edges a principal acts through, as the audit trail records them.
const (
	EdgeAPI   = "api"   // the HTTP API (the CLI, the SDKs, MCP, the hooks)
	EdgeWeb   = "web"   // the web inbox
	EdgeSlack = "slack" // Slack buttons, modals, replies, slash commands
)

type edgeKey struct{}

// WithEdge returns a context that says which edge the request came
// through. Each edge sets it where it sets the principal.
func WithEdge(ctx context.Context, edge string) context.Context {
	return context.WithValue(ctx, edgeKey{}, edge)
}

// EdgeFrom returns the edge ctx came through ("" when none said: the
// service's own transitions).
func EdgeFrom(ctx context.Context) string {
	e, _ := ctx.Value(edgeKey{}).(string)
	return e
}
