package main

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"time"

	"github.com/hitlbot/hitl/api"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/metrics"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/sweeper"
)

// observability is what Main runs for operators: the alerts, the
// metrics that follow the log, and /metrics on a listener of its own
// when metrics_listen is set.
type observability struct {
	alerts  *service.Alerts
	metrics *metrics.Metrics
	ln      net.Listener
	http    *http.Server
	served  chan struct{}
}

// startObservability reads back the alerts and starts the metrics.
// streams reports the API's open event streams at scrape time.
func (m *Main) startObservability(ctx context.Context, streams func() int) error {
	o := &observability{}
	m.obs = o
	var err error
	if o.alerts, err = m.Service.Observation.NewAlerts(ctx, m.Config.HitlAlerts()); err != nil {
		return err
	}
	o.metrics = metrics.New(metrics.Config{Source: metricsSourceOf(m.Service), Alerts: o.alerts, Logger: m.Logger,
		EventStreams: func() float64 { return float64(streams()) },
		OutboxDepth: func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			n, err := m.DB.QueueLength(ctx)
			if err != nil {
				return math.NaN()
			}
			return float64(n)
		}})
	return o.metrics.Start(ctx)
}

// sweepWork is the sweeper's work followed by an alert check: alerts
// start and clear on the sweep's schedule (each once: Check posts only
// changes).
func (m *Main) sweepWork() sweeper.SweepFunc {
	work := sweeper.Work(sweeperLifecycleOf(m.Service), time.Duration(m.Config.Retention))
	return func(ctx context.Context) (int, error) {
		n, err := work(ctx)
		if _, perr := m.pruneWebhooks(ctx); perr != nil {
			m.Logger.Error("pruning webhook deliveries failed", "err", perr)
		}
		if _, perr := m.pruneAudit(ctx); perr != nil {
			m.Logger.Error("pruning the audit trail failed", "err", perr)
		}
		if _, aerr := m.obs.alerts.Check(ctx); aerr != nil {
			m.Logger.Error("checking alerts failed", "err", aerr)
		}
		return n, err
	}
}

// metricsOnAPI is the handler /metrics is served by on the API listener
// (admins only: the root decides), nil when metrics_listen is set.
func (m *Main) metricsOnAPI() http.Handler {
	if m.Config.MetricsListen != "" {
		return nil
	}
	return m.obs.metrics.Handler()
}

// serveMetrics serves /metrics on metrics_listen, without a token: every
// request there is hitl.ScrapePrincipal, which may scrape and nothing else.
func (m *Main) serveMetrics() error {
	if m.Config.MetricsListen == "" {
		return nil
	}
	o := m.obs
	ln, err := net.Listen("tcp", m.Config.MetricsListen)
	if err != nil {
		return fault.Errorf(fault.EUNAVAILABLE, "listen on metrics_listen %s: %v", m.Config.MetricsListen, err)
	}
	o.ln = ln
	mux := http.NewServeMux()
	h := o.metrics.Handler()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		ctx := auth.WithPrincipal(r.Context(), auth.ScrapePrincipal)
		if err := m.Service.Guard.AuthorizeScrape(ctx); err != nil {
			http.Error(w, fault.Message(err), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r.WithContext(ctx))
	})
	o.http = api.NewHTTPServer(mux, nil)
	o.served = make(chan struct{})
	go func() {
		defer close(o.served)
		if err := o.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.Logger.Error("metrics server stopped", "err", err)
		}
	}()
	return nil
}

// MetricsURL is where metrics_listen serves /metrics ("" when it is off).
func (m *Main) MetricsURL() string {
	if m.obs == nil || m.obs.ln == nil {
		return ""
	}
	return "http://" + m.obs.ln.Addr().String() + "/metrics"
}

// close stops the metrics listener and the metrics' reader.
func (o *observability) close() {
	if o == nil {
		return
	}
	if o.http != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := o.http.Shutdown(ctx); err != nil {
			o.http.Close()
		}
		<-o.served
	}
	if o.metrics != nil {
		o.metrics.Close()
	}
}
