package oidc

import (
	"context"
	"sync"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"github.com/hitlbot/hitl"
)

// KeyMaxAge is how long the provider's keys are trusted without asking it
// again. A token signed by a key hitl has not seen makes it ask at once
// (the provider rotated); a key the provider stopped publishing (removed:
// perhaps compromised) is trusted for at most this long.
const KeyMaxAge = 5 * time.Minute

// freshKeys is the provider's key set (jwks_uri), fetched again when a
// token names a key not seen yet (go-oidc's RemoteKeySet does that) and
// dropped whole once older than KeyMaxAge, so a removed key stops
// verifying.
type freshKeys struct {
	ctx   context.Context // carries the HTTP client
	url   string
	clock hitl.Clock

	mu   sync.Mutex
	set  *gooidc.RemoteKeySet
	made time.Time
}

func (k *freshKeys) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	now := k.clock.Now()
	k.mu.Lock()
	if k.set == nil || now.Sub(k.made) >= KeyMaxAge || now.Before(k.made) {
		k.set, k.made = gooidc.NewRemoteKeySet(k.ctx, k.url), now
	}
	set := k.set
	k.mu.Unlock()
	return set.VerifySignature(ctx, jwt)
}
