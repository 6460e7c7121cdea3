package hitl

import (
	"encoding/json"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hitlbot/hitl/fault"
)

// Webhooks call agents that do not stay running when a person decided
// (docs/webhooks.md): each event a configured endpoint (or a question's
// own callbackUrl) subscribes to becomes a WebhookDelivery, written by
// the store in the transaction of the event (Event.Webhooks), and a
// delivery worker (package webhook) posts it, signed per Standard
// Webhooks, until the receiver answers 2xx or the retry window ends.

// WebhookStatus is where a delivery stands.
type WebhookStatus string

const (
	WebhookPending   WebhookStatus = "pending"   // to be sent (again)
	WebhookDelivered WebhookStatus = "delivered" // the receiver answered 2xx
	WebhookFailed    WebhookStatus = "failed"    // the retry window ended without a 2xx
)

// WebhookDelivery is one event owed to one receiver: an outbox record.
// Deliveries to one Target for one run are sent in order (Seq): the
// next waits until the one before it is delivered or failed.
type WebhookDelivery struct {
	Seq uint64 `json:"seq"` // outbox order, set by the store
	// ID is the webhook-id header: one per event, the same for every
	// receiver, every retry and every replay, so a receiver deduplicates.
	ID string `json:"id"`
	// Endpoint is the configured endpoint's name; empty for a question's
	// callbackUrl, which URL holds.
	Endpoint string       `json:"endpoint,omitempty"`
	URL      string       `json:"url,omitempty"`
	Type     WebhookEvent `json:"type"`
	RunID    string       `json:"runId"`
	// QuestionID is the question a question event is about.
	QuestionID string `json:"questionId,omitempty"`
	// Asker is the principal that asked the question whose callbackUrl
	// a callback goes to (hitl.Question.Asker): callbacks are capped per
	// asker. Empty for an endpoint's, and for a callback enqueued before
	// it was recorded.
	Asker string `json:"asker,omitempty"`
	// EventSeq is the Seq of the event it reports (set by the store).
	EventSeq uint64 `json:"event,omitempty"`
	// Body is the payload sent, fixed when the event happened.
	Body      json.RawMessage `json:"body"`
	Status    WebhookStatus   `json:"status"`
	CreatedAt time.Time       `json:"createdAt"`
	// NextAt is when a pending delivery is due (again); a claimed one's
	// claim runs out then.
	NextAt time.Time `json:"nextAt"`
	// Claim numbers the claims of the delivery (ClaimWebhooks): a
	// settlement of an older claim is refused (WebhookClaimHeld).
	Claim     uint64     `json:"claim,omitempty"`
	Attempts  int        `json:"attempts,omitempty"`
	LastError string     `json:"lastError,omitempty"`
	LastCode  int        `json:"lastCode,omitempty"` // the last HTTP status
	SettledAt *time.Time `json:"settledAt,omitempty"`
}

// Target is what a delivery's order and concurrency are kept per: the
// endpoint's name, or "callback:" and the callbackUrl's normalised
// origin (CallbackOrigin), so that one receiver is one target however
// its URL is spelled. The stores index deliveries by it.
func (d *WebhookDelivery) Target() string {
	if d.Endpoint != "" {
		return d.Endpoint
	}
	return callbackPrefix + CallbackOrigin(d.URL)
}

// callbackPrefix starts a callback's target; an endpoint's name cannot
// hold a colon (config), so the two never meet.
const callbackPrefix = "callback:"

// IsCallbackTarget reports whether target (WebhookDelivery.Target) is a callbackUrl's.
func IsCallbackTarget(target string) bool { return strings.HasPrefix(target, callbackPrefix) }

// CallbackOrigin is the origin of a callbackUrl as one receiver: the
// scheme and host lowercased, the host's trailing dot removed, an IP
// literal in its canonical form (IPv6 in brackets, an IPv4-mapped one as
// its IPv4), the scheme's default port left out. So http://LOCALHOST,
// http://localhost. and http://localhost:80/x are one receiver,
// http://localhost. An unparsable URL is the empty origin.
func CallbackOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		a = a.Unmap()
		host = a.String()
		if a.Is6() {
			host = "[" + host + "]"
		}
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if n, err := strconv.ParseUint(port, 10, 16); err == nil {
		port = strconv.FormatUint(n, 10) // 080 is 80
	}
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

// WebhookClaimHeld is nil when d (a sender's copy) still holds the claim
// of stored, else ECONFLICT.
func WebhookClaimHeld(stored, d WebhookDelivery) error {
	if stored.Claim != d.Claim {
		return fault.Errorf(fault.ECONFLICT, "webhook delivery %d was claimed again since claim %d (now claim %d)", d.Seq, d.Claim, stored.Claim)
	}
	if stored.Status != WebhookPending {
		return fault.Errorf(fault.ECONFLICT, "webhook delivery %d is %s", d.Seq, stored.Status)
	}
	return nil
}

// WebhookReplayOf is the delivery a replay of d enqueues: the same event (ID,
// body, receiver), pending, due at now, not yet attempted.
func WebhookReplayOf(d WebhookDelivery, now time.Time) WebhookDelivery {
	d.Seq, d.Status, d.CreatedAt, d.NextAt = 0, WebhookPending, now, now
	d.Claim, d.Attempts, d.LastError, d.LastCode, d.SettledAt = 0, 0, "", 0, nil
	return d
}

// WebhookTargetStats is what hitl webhooks list shows of a target.
type WebhookTargetStats struct {
	Target      string     `json:"target"`
	Pending     int        `json:"pending"`
	Failed      int        `json:"failed"`
	LastSuccess *time.Time `json:"lastSuccess,omitempty"`
}

// WebhookTally counts a store's deliveries by target as it reads them:
// each store reads its own way (an index, a query, a map) and keeps the
// arithmetic here, once. The zero WebhookTally is empty.
type WebhookTally struct {
	by map[string]*WebhookTargetStats
}

func (t *WebhookTally) target(name string) *WebhookTargetStats {
	if t.by == nil {
		t.by = map[string]*WebhookTargetStats{}
	}
	if t.by[name] == nil {
		t.by[name] = &WebhookTargetStats{Target: name}
	}
	return t.by[name]
}

// Add counts n deliveries to target in status (pending or failed; the
// others are not counted).
func (t *WebhookTally) Add(target string, status WebhookStatus, n int) {
	switch status {
	case WebhookPending:
		t.target(target).Pending += n
	case WebhookFailed:
		t.target(target).Failed += n
	}
}

// Succeeded records target's last successful delivery.
func (t *WebhookTally) Succeeded(target string, at time.Time) {
	at = at.UTC()
	t.target(target).LastSuccess = &at
}

// Stats are the counts by target name.
func (t *WebhookTally) Stats() []WebhookTargetStats {
	out := make([]WebhookTargetStats, 0, len(t.by))
	for _, st := range t.by {
		out = append(out, *st)
	}
	slices.SortFunc(out, func(a, b WebhookTargetStats) int { return strings.Compare(a.Target, b.Target) })
	return out
}
