package metrics

import (
	"github.com/hitlbot/hitl"
	"github.com/prometheus/client_golang/prometheus"
)

// Alerts is what the metrics read of the alerts at each scrape
// (service.Alerts): the active ones and the names of all.
type Alerts interface {
	Active() []hitl.Alert
	Names() []string
}

var alertDesc = prometheus.NewDesc("hitl_alert_active",
	"1 while an alert is active (timeout_rate:TYPE, unanswered_blocking, creation_errors, webhook_failures), else 0.", []string{"alert"}, nil)

// alertCollector exports the alerts' state at each scrape, from memory.
type alertCollector struct{ alerts Alerts }

func (c alertCollector) Describe(ch chan<- *prometheus.Desc) { ch <- alertDesc }

func (c alertCollector) Collect(ch chan<- prometheus.Metric) {
	if c.alerts == nil {
		return
	}
	active := map[string]bool{}
	for _, a := range c.alerts.Active() {
		active[a.Name] = true
	}
	for _, name := range c.alerts.Names() {
		v := 0.0
		if active[name] {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(alertDesc, prometheus.GaugeValue, v, name)
	}
}
