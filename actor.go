package hitl

import "context"

// Actor names who does something, as recorded in respondedBy and the audit
// log: "slack:U024BE7LH", "api:ci-agent", "cli:alice", "system".
type actorKey struct{}

// ActorSystem is the actor of the service's own transitions (timeouts).
const ActorSystem = "system"

// WithActor returns a context that carries who is acting. Edges set it once,
// after authenticating the caller.
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// ActorFrom returns the actor in ctx, or "anonymous".
func ActorFrom(ctx context.Context) string {
	if a, ok := ctx.Value(actorKey{}).(string); ok && a != "" {
		return a
	}
	return "anonymous"
}
