package hitl

// WebhookOverview is hitl webhooks list: the configured endpoints (never
// their secrets) and, per target, the queue, the failures and the last
// success.
type WebhookOverview struct {
	Endpoints []WebhookRoute       `json:"endpoints"`
	Targets   []WebhookTargetStats `json:"targets"`
}

// WebhookPingResult is the outcome of a test delivery: the receiver's
// status (0: none), and why it failed (empty for a 2xx).
type WebhookPingResult struct {
	Endpoint string `json:"endpoint"`
	Status   int    `json:"status"`
	Error    string `json:"error,omitempty"`
}
