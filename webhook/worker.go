package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	neturl "net/url"
	"sync"
	"syscall"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
)

// Endpoint is a configured receiver with its secrets.
type Endpoint struct {
	Name    string
	URL     string
	Secrets []Secret
}

// Config configures a Worker.
type Config struct {
	Endpoints []Endpoint
	// CallbackSecrets sign deliveries to a question's callbackUrl
	// (webhooks_callback_secret_file); none: callbacks are not sent
	// (they fail, logged).
	CallbackSecrets []Secret
	// Callbacks is checked on every connection to a callbackUrl (DNS
	// rebinding: the address it resolves to now).
	Callbacks CallbackPolicy
	Clock     Clock
	Logger    *slog.Logger
	// Changed wakes the worker when events (and so deliveries) were
	// committed (the service's event log; nil: ticks only).
	Changed func() <-chan struct{}
	// Every is how often the worker looks for deliveries due again
	// (retries, claims that ran out); default 1 s.
	Every time.Duration
	// Timeout bounds one attempt (default 10 s); Lease how long a
	// claimed delivery is this worker's (default 1 min, well past
	// Timeout: a live worker never outlasts its claim).
	Timeout time.Duration
	Lease   time.Duration
	// MaxInFlight bounds the attempts in flight (default 64), PerTarget
	// those to one target (default 4). EndpointShare of the slots
	// (default 16) are the configured endpoints' alone: callbacks (a
	// question's callbackUrl, which any ask token names) use at most
	// MaxInFlight - EndpointShare, and PerAsker (default 8) for one
	// asker (docs/webhooks.md, "A slow receiver delays nobody else").
	MaxInFlight   int
	PerTarget     int
	EndpointShare int
	PerAsker      int
	// Jitter returns a number in [0, 1) for the retry's jitter (default
	// math/rand).
	Jitter func() float64
	// Transport sends the requests (default: a transport whose dialer
	// checks each callbackUrl connection's address against Callbacks).
	Transport http.RoundTripper
	// Failed is told of each delivery given up (the metric).
	Failed func(d hitl.WebhookDelivery)
	// Failing records a delivery about to be given up (the audit trail's
	// webhook_failed record), before it is settled failed: a failure is
	// never settled without its record. An error leaves the delivery
	// claimed and unsettled: it is tried again when its claim runs out.
	// A crash between the record and the settle does the same, so a
	// failure may be recorded twice (the same delivery, the same
	// attempt), never not at all.
	Failing func(ctx context.Context, d hitl.WebhookDelivery) error
}

// Outbox is what the worker needs of the store's webhook outbox
// (hitl.WebhookOutbox, where each method is documented): claiming the
// deliveries due, and settling each.
type Outbox interface {
	ClaimWebhooks(ctx context.Context, now, until time.Time, c hitl.WebhookClaim) ([]hitl.WebhookDelivery, error)
	SettleWebhook(ctx context.Context, d hitl.WebhookDelivery) error
}

// Clock tells the worker the time (hitl.Clock; tests inject a fake one).
type Clock interface {
	Now() time.Time
}

// utcClock is the wall clock, in UTC.
type utcClock struct{}

func (utcClock) Now() time.Time { return time.Now().UTC() }

// Worker sends webhook deliveries.
type Worker struct {
	cfg    Config
	box    Outbox
	log    *slog.Logger
	client *http.Client
	byName map[string]Endpoint

	mu        sync.Mutex
	inFlight  map[string]int // by target
	askers    map[string]int // callbacks, by asker
	callbacks int
	total     int
	freed     chan struct{} // a slot was freed (buffered, 1)

	stop context.CancelFunc
	done chan struct{}
	wg   sync.WaitGroup
	// redial maps the address a request dials (tests: a name that
	// "resolves" to a private address); nil: none.
	redial func(addr string) string
	// noShare and noAskerCap switch a rule off (tests that show it is
	// what holds).
	noShare, noAskerCap bool
}

// New returns a worker over box.
func New(cfg Config, box Outbox) *Worker {
	if cfg.Clock == nil {
		cfg.Clock = utcClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Every <= 0 {
		cfg.Every = time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Lease <= 0 {
		cfg.Lease = time.Minute
	}
	if cfg.Lease < 2*cfg.Timeout {
		// A live worker never outlasts its claim: an attempt (Timeout)
		// and its record end well inside the lease.
		cfg.Lease = 2 * cfg.Timeout
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 64
	}
	if cfg.PerTarget <= 0 {
		cfg.PerTarget = 4
	}
	if cfg.EndpointShare <= 0 {
		cfg.EndpointShare = 16
	}
	if cfg.EndpointShare >= cfg.MaxInFlight {
		cfg.EndpointShare = cfg.MaxInFlight / 4 // callbacks keep some room too
	}
	if cfg.PerAsker <= 0 {
		cfg.PerAsker = 8
	}
	if cfg.Jitter == nil {
		cfg.Jitter = rand.Float64
	}
	w := &Worker{cfg: cfg, box: box, log: cfg.Logger.With("component", "webhook"), byName: map[string]Endpoint{},
		inFlight: map[string]int{}, askers: map[string]int{}, freed: make(chan struct{}, 1)}
	for _, e := range cfg.Endpoints {
		w.byName[e.Name] = e
	}
	tr := cfg.Transport
	if tr == nil {
		tr = w.transport()
	}
	w.client = &http.Client{Transport: tr, Timeout: cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return w
}

// callbackKey marks a request to a callbackUrl, for the dialer's check.
type callbackKey struct{}

// transport is http.DefaultTransport's settings with a dialer that
// refuses, for a callbackUrl, an address the policy does not allow: the
// check is on the address connected to, after resolution.
func (w *Worker) transport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil // a proxy would connect for us, past the check
	tr.MaxIdleConnsPerHost = w.cfg.PerTarget
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := net.Dialer{Timeout: w.cfg.Timeout}
		if w.redial != nil {
			addr = w.redial(addr)
		}
		if u, ok := ctx.Value(callbackKey{}).(string); ok {
			d.Control = func(_, address string, _ syscall.RawConn) error {
				return w.cfg.Callbacks.DialAllowed(u, address)
			}
		}
		return d.DialContext(ctx, network, addr)
	}
	return tr
}

// Start runs the worker until Close.
func (w *Worker) Start() {
	ctx, stop := context.WithCancel(context.Background())
	w.stop, w.done = stop, make(chan struct{})
	go func() {
		defer close(w.done)
		w.run(ctx)
	}()
}

// Close stops claiming and waits for the attempts in flight.
func (w *Worker) Close() {
	if w.stop == nil {
		return
	}
	w.stop()
	<-w.done
	w.wg.Wait()
}

func (w *Worker) run(ctx context.Context) {
	tick := time.NewTicker(w.cfg.Every)
	defer tick.Stop()
	for ctx.Err() == nil {
		var changed <-chan struct{}
		if w.cfg.Changed != nil {
			changed = w.cfg.Changed()
		}
		n, err := w.Step(ctx)
		if err != nil && ctx.Err() == nil {
			w.log.Error("webhook: claiming deliveries failed", "err", err)
		}
		if n > 0 && err == nil {
			continue
		}
		select {
		case <-changed:
		case <-tick.C:
		case <-w.freed:
		case <-ctx.Done():
		}
	}
}

// Step claims the deliveries due now that free slots allow and starts
// sending them; it returns how many it started.
func (w *Worker) Step(ctx context.Context) (int, error) {
	w.mu.Lock()
	c := w.claim()
	c.Targets, c.Askers = maps.Clone(c.Targets), maps.Clone(c.Askers) // the store reads them unlocked
	w.mu.Unlock()
	if c.Limit <= 0 {
		return 0, nil
	}
	now := w.cfg.Clock.Now()
	ds, err := w.box.ClaimWebhooks(ctx, now, now.Add(w.cfg.Lease), c)
	if err != nil {
		return 0, err
	}
	started := 0
	for _, d := range ds {
		t := d.Target()
		w.mu.Lock()
		if !w.claim().Pick().Take(t, d.Asker) {
			// Claimed past the rules (a store that read an older
			// state): it waits for its claim to run out, or a slot.
			w.mu.Unlock()
			w.release(ctx, d)
			continue
		}
		w.inFlight[t]++
		if hitl.IsCallbackTarget(t) {
			w.askers[d.Asker]++
			w.callbacks++
		}
		w.total++
		w.mu.Unlock()
		started++
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			defer w.done1(t, d.Asker)
			w.Deliver(context.WithoutCancel(ctx), d)
		}()
	}
	return started, nil
}

// claim is what the free slots allow now (w.mu held): the capacity
// rules of Claim over the attempts in flight.
func (w *Worker) claim() hitl.WebhookClaim {
	c := hitl.WebhookClaim{Limit: w.cfg.MaxInFlight - w.total, PerTarget: w.cfg.PerTarget, PerAsker: w.cfg.PerAsker,
		Targets: w.inFlight, Askers: w.askers}
	c.Callbacks = min(c.Limit, w.cfg.MaxInFlight-w.cfg.EndpointShare-w.callbacks)
	c.NoCallbacks = c.Callbacks <= 0
	if w.noShare {
		c.Callbacks, c.NoCallbacks = 0, false
	}
	if w.noAskerCap {
		c.PerAsker = 0
	}
	return c
}

// release hands a claimed delivery back, due at once.
func (w *Worker) release(ctx context.Context, d hitl.WebhookDelivery) {
	d.NextAt = w.cfg.Clock.Now()
	if err := w.box.SettleWebhook(ctx, d); err != nil {
		w.log.Warn("webhook: releasing a delivery failed (it is due when its claim runs out)", "delivery", d.Seq, "err", err)
	}
}

func (w *Worker) done1(target, asker string) {
	w.mu.Lock()
	w.inFlight[target]--
	if w.inFlight[target] == 0 {
		delete(w.inFlight, target)
	}
	if hitl.IsCallbackTarget(target) {
		w.askers[asker]--
		if w.askers[asker] == 0 {
			delete(w.askers, asker)
		}
		w.callbacks--
	}
	w.total--
	w.mu.Unlock()
	select {
	case w.freed <- struct{}{}:
	default:
	}
}

// Deliver makes one attempt of d (claimed) and records its outcome:
// delivered, due again on the schedule, or failed.
func (w *Worker) Deliver(ctx context.Context, d hitl.WebhookDelivery) {
	code, err := w.Send(ctx, d)
	now := w.cfg.Clock.Now()
	d.Attempts++
	d.LastCode = code
	log := w.log.With("delivery", d.Seq, "id", d.ID, "target", d.Target(), "type", d.Type, "attempt", d.Attempts)
	switch {
	case err == nil:
		d.Status, d.SettledAt, d.LastError = hitl.WebhookDelivered, &now, ""
	default:
		d.LastError = err.Error()
		next, ok := Retry(d.Attempts, now, w.cfg.Jitter())
		if ok {
			d.NextAt = next
			log.Warn("webhook: attempt failed; retrying", "err", err, "next", next)
		} else {
			d.Status, d.SettledAt = hitl.WebhookFailed, &now
			log.Error("webhook: delivery failed: the retry schedule is over", "err", err)
		}
	}
	if d.Status == hitl.WebhookFailed && w.cfg.Failing != nil {
		if ferr := w.cfg.Failing(ctx, d); ferr != nil {
			log.Warn("webhook: recording the failure failed; tried again when the claim runs out", "err", ferr)
			return
		}
	}
	if serr := w.box.SettleWebhook(ctx, d); serr != nil {
		// The claim ran out (another worker has it) or the store is
		// down: the delivery is due again when its claim runs out.
		log.Warn("webhook: recording the attempt failed", "err", serr)
		return
	}
	if d.Status == hitl.WebhookFailed && w.cfg.Failed != nil {
		w.cfg.Failed(d)
	}
}

// Send posts d once, signed, and returns the receiver's status: nil
// error for a 2xx.
func (w *Worker) Send(ctx context.Context, d hitl.WebhookDelivery) (int, error) {
	url, secrets := d.URL, w.cfg.CallbackSecrets
	if d.Endpoint != "" {
		e, ok := w.byName[d.Endpoint]
		if !ok {
			return 0, fmt.Errorf("endpoint %q is not configured", d.Endpoint)
		}
		url, secrets = e.URL, e.Secrets
	} else {
		if err := w.cfg.Callbacks.Check(url); err != nil {
			return 0, errors.New(fault.Message(err))
		}
		ctx = context.WithValue(ctx, callbackKey{}, url)
	}
	if len(secrets) == 0 {
		return 0, errors.New("no secret to sign with (webhooks_callback_secret_file)")
	}
	ctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(d.Body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hitl-webhooks")
	Sign(req.Header, secrets, d.ID, w.cfg.Clock.Now(), d.Body)
	resp, err := w.client.Do(req)
	if err != nil {
		var uerr *neturl.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // not the URL: a callbackUrl's query may hold the agent's own token
		}
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("the receiver answered %s", resp.Status)
	}
	return resp.StatusCode, nil
}

// Ping sends a signed webhook.ping to endpoint name now (hitl webhooks
// test), outside the outbox, and returns the receiver's status.
func (w *Worker) Ping(ctx context.Context, name string) (int, error) {
	if _, ok := w.byName[name]; !ok {
		return 0, fault.Errorf(fault.ENOTFOUND, "no webhook endpoint is named %q", name)
	}
	now := w.cfg.Clock.Now()
	d := PingDelivery(name, now)
	code, err := w.Send(ctx, d)
	if err != nil {
		return code, fault.Errorf(fault.EUNAVAILABLE, "%v", err)
	}
	return code, nil
}
