package main

import (
	"github.com/hitlbot/hitl/api"
	"github.com/hitlbot/hitl/email"
	"github.com/hitlbot/hitl/metrics"
	"github.com/hitlbot/hitl/service"
	"github.com/hitlbot/hitl/slack"
	"github.com/hitlbot/hitl/sweeper"
	"github.com/hitlbot/hitl/web"
)

// botServiceOf is the bot's part of svc.
func botServiceOf(svc *service.Service) slack.Service {
	return slack.Service{Log: svc.Log, Questions: svc.Questions, Runs: svc.Runs, Policies: svc.Policies, Alerts: svc.Observation}
}

// emailServiceOf is the mailer's part of svc.
func emailServiceOf(svc *service.Service) email.Service {
	return email.Service{Log: svc.Log, Questions: svc.Questions, Runs: svc.Runs}
}

// webServicesOf is the web's part of svc.
func webServicesOf(svc *service.Service) web.Services {
	return web.Services{Access: svc.Access(), Log: svc.Log, Questions: svc.Questions, Runs: svc.Runs,
		Policies: svc.Policies, SignIns: svc.SignIns, Guard: svc.Guard}
}

// apiServicesOf is the API's part of svc: all of it.
func apiServicesOf(svc *service.Service) api.Services {
	return api.Services{Questions: svc.Questions, Log: svc.Log, Runs: svc.Runs, Policies: svc.Policies,
		Stats: svc.Observation, Webhooks: svc.Webhooks, Guard: svc.Guard, Scrape: svc.Guard, Holds: svc.Runs, Audit: svc.Audit}
}

// sweeperLifecycleOf is the sweeper's part of svc.
func sweeperLifecycleOf(svc *service.Service) sweeper.Lifecycle {
	return sweeper.Lifecycle{Questions: svc.Questions, Runs: svc.Runs, Policies: svc.Policies, Guard: svc.Guard}
}

// metricsSourceOf is the metrics' part of svc.
func metricsSourceOf(svc *service.Service) metrics.Source {
	return metrics.Source{Log: svc.Log, Questions: svc.Questions, Pending: svc.Observation}
}
