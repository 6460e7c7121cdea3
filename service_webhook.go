package hitl

// The service's side of webhooks: every change of a question or run it
// commits carries, on its event, the webhook deliveries the event owes
// (WebhookRoutes), which the store writes in the same transaction.

// hookQuestion wraps fn, a question update, so that its event carries its
// webhook deliveries.
func (s *Service) hookQuestion(fn func(q *Question) (*Event, error)) func(q *Question) (*Event, error) {
	return func(q *Question) (*Event, error) {
		ev, err := fn(q)
		if err == nil && ev != nil {
			ev.Webhooks = s.webhooks.ForQuestion(ev, q)
		}
		return ev, err
	}
}

// hookRun wraps fn, a run update, so that its last event carries the
// webhook deliveries of the run's change of status.
func (s *Service) hookRun(fn func(run *Run) (RunUpdate, error)) func(run *Run) (RunUpdate, error) {
	return func(run *Run) (RunUpdate, error) {
		was := controlStatus(run)
		upd, err := fn(run)
		if err == nil {
			s.attachRunWebhooks(was, upd)
		}
		return upd, err
	}
}

// hookSteer is hookRun for SteerRun's functions.
func (s *Service) hookSteer(fn func(run *Run, prior *ControlRecord) (RunUpdate, error)) func(run *Run, prior *ControlRecord) (RunUpdate, error) {
	return func(run *Run, prior *ControlRecord) (RunUpdate, error) {
		was := controlStatus(run)
		upd, err := fn(run, prior)
		if err == nil {
			s.attachRunWebhooks(was, upd)
		}
		return upd, err
	}
}

func (s *Service) attachRunWebhooks(was RunStatus, upd RunUpdate) {
	if len(upd.Events) == 0 {
		return
	}
	last := upd.Events[len(upd.Events)-1]
	last.Webhooks = s.webhooks.ForRun(was, upd, last.At)
}

func controlStatus(run *Run) RunStatus {
	if run == nil {
		return ""
	}
	return run.Control.Status
}
