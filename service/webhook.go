package service

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/access"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
)

// The service's side of webhooks: every change of a question or run it
// commits carries, on its event, the webhook deliveries the event owes
// (WebhookRoutes), which the store writes in the same transaction.

// hooks attaches to each change's event the webhook deliveries it owes
// under routes (nil: none). Questions and Runs hold one.
type hooks struct {
	routes *hitl.WebhookRoutes
}

// hookQuestion wraps fn, a question update, so that its event carries its
// webhook deliveries.
func (s hooks) hookQuestion(fn func(q *hitl.Question) (*hitl.Event, error)) func(q *hitl.Question) (*hitl.Event, error) {
	return func(q *hitl.Question) (*hitl.Event, error) {
		ev, err := fn(q)
		if err == nil && ev != nil {
			ev.Webhooks = s.routes.ForQuestion(ev, q)
		}
		return ev, err
	}
}

// hookRun wraps fn, a run update, so that its last event carries the
// webhook deliveries of the run's change of status.
func (s hooks) hookRun(fn func(run *hitl.Run) (hitl.RunUpdate, error)) func(run *hitl.Run) (hitl.RunUpdate, error) {
	return func(run *hitl.Run) (hitl.RunUpdate, error) {
		was := controlStatus(run)
		upd, err := fn(run)
		if err == nil {
			s.attachRunWebhooks(was, upd)
		}
		return upd, err
	}
}

// hookSteer is hookRun for SteerRun's functions.
func (s hooks) hookSteer(fn func(run *hitl.Run, prior *hitl.ControlRecord) (hitl.RunUpdate, error)) func(run *hitl.Run, prior *hitl.ControlRecord) (hitl.RunUpdate, error) {
	return func(run *hitl.Run, prior *hitl.ControlRecord) (hitl.RunUpdate, error) {
		was := controlStatus(run)
		upd, err := fn(run, prior)
		if err == nil {
			s.attachRunWebhooks(was, upd)
		}
		return upd, err
	}
}

func (s hooks) attachRunWebhooks(was steer.RunStatus, upd hitl.RunUpdate) {
	if len(upd.Events) == 0 {
		return
	}
	last := upd.Events[len(upd.Events)-1]
	last.Webhooks = s.routes.ForRun(was, upd, last.At)
}

func controlStatus(run *hitl.Run) steer.RunStatus {
	if run == nil {
		return ""
	}
	return run.Control.Status
}

var _ hitl.WebhookService = (*Webhooks)(nil)

// Webhooks operates the webhook outbox: endpoints, deliveries, replays.
type Webhooks struct {
	store    WebhooksStore
	clock    hitl.Clock
	access   access.Access
	notifier hitl.Notifier
	routes   *hitl.WebhookRoutes
	guard    gate
	pinger   atomic.Pointer[func(ctx context.Context, name string) (int, error)]
}

// WebhooksStore is what Webhooks reads and writes of the webhook outbox.
type WebhooksStore interface {
	WebhookDeliveries(ctx context.Context, f hitl.WebhookFilter) ([]hitl.WebhookDelivery, error)
	ReplayWebhook(ctx context.Context, seq uint64, now time.Time) (hitl.WebhookDelivery, error)
	WebhookStats(ctx context.Context) ([]hitl.WebhookTargetStats, error)
}

// WebhooksConfig is what Webhooks use (ServiceConfig says what each
// field does); Routes are the configured endpoints (nil: none).
type WebhooksConfig struct {
	Store    WebhooksStore
	Clock    hitl.Clock
	Access   access.Access
	Notifier hitl.Notifier
	Routes   *hitl.WebhookRoutes
	Guard    *Guard
}

// NewWebhooks returns the operators' side of webhooks.
func NewWebhooks(cfg WebhooksConfig) *Webhooks {
	if cfg.Clock == nil {
		cfg.Clock = hitl.SystemClock{}
	}
	return &Webhooks{store: cfg.Store, clock: cfg.Clock, access: cfg.Access, notifier: cfg.Notifier, routes: cfg.Routes, guard: cfg.Guard}
}

// SetWebhookPinger gives the service the webhook edge's test delivery
// (nil: webhooks are off).
func (s *Webhooks) SetWebhookPinger(ping func(ctx context.Context, name string) (int, error)) {
	s.pinger.Store(&ping)
}

func (s *Webhooks) authorizeWebhooks(ctx context.Context) error {
	p := auth.PrincipalFrom(ctx)
	if err := s.access.Authorize(p, auth.ActionWebhooks, nil); err != nil {
		return s.guard.refused(ctx, p, auth.ActionWebhooks, &hitl.Question{}, err)
	}
	return nil
}

// Webhooks implements WebhookService.
func (s *Webhooks) Webhooks(ctx context.Context) (hitl.WebhookOverview, error) {
	if err := s.authorizeWebhooks(ctx); err != nil {
		return hitl.WebhookOverview{}, err
	}
	out := hitl.WebhookOverview{Endpoints: []hitl.WebhookRoute{}}
	if s.routes != nil {
		out.Endpoints = append(out.Endpoints, s.routes.Endpoints...)
	}
	var err error
	out.Targets, err = s.store.WebhookStats(ctx)
	return out, err
}

// WebhookDeliveries implements WebhookService.
func (s *Webhooks) WebhookDeliveries(ctx context.Context, f hitl.WebhookFilter) ([]hitl.WebhookDelivery, error) {
	if err := s.authorizeWebhooks(ctx); err != nil {
		return nil, err
	}
	switch f.Status {
	case "", hitl.WebhookPending, hitl.WebhookDelivered, hitl.WebhookFailed:
	default:
		return nil, fault.Errorf(fault.EINVALID, "status %q: want pending, delivered or failed", f.Status)
	}
	return s.store.WebhookDeliveries(ctx, f)
}

// ReplayWebhook implements WebhookService: delivery seq is sent again,
// with its webhook id, after the deliveries queued before it.
func (s *Webhooks) ReplayWebhook(ctx context.Context, seq uint64) (hitl.WebhookDelivery, error) {
	if err := s.authorizeWebhooks(ctx); err != nil {
		return hitl.WebhookDelivery{}, err
	}
	d, err := s.store.ReplayWebhook(ctx, seq, s.clock.Now())
	if err == nil {
		s.notifier.Publish("")
	}
	return d, err
}

// PingWebhook implements WebhookService.
func (s *Webhooks) PingWebhook(ctx context.Context, name string) (hitl.WebhookPingResult, error) {
	if err := s.authorizeWebhooks(ctx); err != nil {
		return hitl.WebhookPingResult{}, err
	}
	ping := s.pinger.Load()
	if ping == nil || *ping == nil {
		return hitl.WebhookPingResult{}, fault.Errorf(fault.ENOTFOUND, "no webhook endpoint is named %q (webhooks are not configured)", name)
	}
	code, err := (*ping)(ctx, name)
	res := hitl.WebhookPingResult{Endpoint: name, Status: code}
	switch {
	case fault.Code(err) == fault.ENOTFOUND:
		return res, err
	case err != nil:
		res.Error = fault.Message(err)
	}
	return res, nil
}
