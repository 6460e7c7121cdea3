package slack

import (
	"context"
	"sync"
	"time"

	goslack "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

// ackBudget bounds the work done before an envelope is acked (Slack
// waits 3 s, and the ack still has to travel).
const ackBudget = 2 * time.Second

// identity is who the bot is in Slack, from auth.test, so it can ignore its
// own messages by user and bot id (not by subtype), and envelopes from
// any workspace but its own.
type identity struct {
	mu     sync.RWMutex
	userID string
	botID  string
	teamID string
}

func (i *identity) set(userID, botID, teamID string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.userID, i.botID, i.teamID = userID, botID, teamID
}

// ownTeam reports whether team is the workspace the bot authenticated
// in. Before auth.test answered, no team is.
func (i *identity) ownTeam(team string) bool {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.teamID != "" && team == i.teamID
}

func (i *identity) isSelf(userID, botID string) bool {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return (botID != "" && botID == i.botID) || (userID != "" && userID == i.userID)
}

// runSocket keeps a Socket Mode connection up: slack-go reconnects after a
// `disconnect` itself; when it gives up (Slack unreachable), this loop
// starts it again with backoff.
func (b *Bot) runSocket(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	go func() { defer wg.Done(); b.consume(ctx) }()
	var delay time.Duration
	for ctx.Err() == nil {
		if err := b.authenticate(ctx); err != nil {
			delay = b.retry.step(delay)
			b.log.Warn("slack auth.test failed; retrying", "err", err, "in", delay)
			sleep(ctx, delay)
			continue
		}
		start := time.Now()
		err := b.sm.RunContext(ctx)
		if ctx.Err() != nil {
			return
		}
		if time.Since(start) > time.Minute {
			delay = 0
		}
		delay = b.retry.step(delay)
		b.log.Warn("slack socket mode stopped; reconnecting", "err", err, "in", delay)
		sleep(ctx, delay)
	}
}

func (b *Bot) authenticate(ctx context.Context) error {
	res, err := b.api.AuthTestContext(ctx)
	if err != nil {
		return err
	}
	b.identity.set(res.UserID, res.BotID, res.TeamID)
	return nil
}

// envelopeHandler handles one Socket Mode envelope: the work that must be
// durable before the ack (within ctx, which holds the ack budget), and
// what to ack with. after, if not nil, runs once the ack is sent.
type envelopeHandler func(ctx context.Context, evt socketmode.Event) (ack any, after func(context.Context))

// registerEnvelopes registers a handler per envelope type; the handlers
// dispatch on action id, callback id and command in turn.
func (b *Bot) registerEnvelopes() {
	b.envelopes = map[socketmode.EventType]envelopeHandler{
		socketmode.EventTypeEventsAPI:    b.onEventsEnvelope,
		socketmode.EventTypeInteractive:  b.onInteractiveEnvelope,
		socketmode.EventTypeSlashCommand: b.onSlashEnvelope,
	}
}

// consume hands each Socket Mode envelope to its handler on its own
// goroutine, so a slow one never holds up another's ack. Close waits for
// the handlers in flight.
func (b *Bot) consume(ctx context.Context) {
	for {
		var evt socketmode.Event
		select {
		case <-ctx.Done():
			return
		case evt = <-b.sm.Events:
		}
		switch evt.Type {
		case socketmode.EventTypeConnected:
			b.log.Info("slack connected (socket mode)")
		case socketmode.EventTypeConnectionError, socketmode.EventTypeInvalidAuth:
			b.log.Warn("slack connection problem", "event", evt.Type, "data", evt.Data)
		}
		b.handle(ctx, evt)
	}
}

// handle runs evt's handler on its own goroutine, tracked by b.wg.
func (b *Bot) handle(ctx context.Context, evt socketmode.Event) {
	h, ok := b.envelopes[evt.Type]
	if !ok {
		b.ack(ctx, evt, nil)
		return
	}
	if team := teamOf(evt); !b.identity.ownTeam(team) {
		// Acked (so Slack stops redelivering), never processed.
		b.log.Warn("slack envelope from another workspace refused", "team", team, "type", evt.Type, "envelope", envelopeID(evt))
		b.ack(ctx, evt, nil)
		return
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		bctx, cancel := context.WithTimeout(ctx, ackBudget)
		payload, after := h(bctx, evt)
		cancel()
		b.ack(ctx, evt, payload)
		if after != nil {
			after(ctx)
		}
	}()
}

// onEventsEnvelope handles an Events API event once; redeliveries are
// acked and dropped.
func (b *Bot) onEventsEnvelope(ctx context.Context, evt socketmode.Event) (any, func(context.Context)) {
	ev, ok := evt.Data.(slackevents.EventsAPIEvent)
	if !ok || !b.first(ctx, envelopeID(evt), eventID(ev)) {
		return nil, nil
	}
	return nil, b.onEventsAPI(ctx, ev)
}

// onInteractiveEnvelope records clicks and modal submissions before the
// ack, so an acked answer is durable.
func (b *Bot) onInteractiveEnvelope(ctx context.Context, evt socketmode.Event) (any, func(context.Context)) {
	cb, ok := evt.Data.(goslack.InteractionCallback)
	if !ok || !b.first(ctx, envelopeID(evt)) {
		return nil, nil
	}
	switch cb.Type {
	case goslack.InteractionTypeViewSubmission:
		return b.onViewSubmission(ctx, cb), nil
	case goslack.InteractionTypeBlockActions:
		notes := b.onBlockActions(ctx, cb)
		return nil, func(ctx context.Context) {
			for _, n := range notes {
				b.tell(ctx, n.channel, n.user, n.text)
			}
		}
	}
	return nil, nil
}

// onSlashEnvelope answers /hitl in the ack.
func (b *Bot) onSlashEnvelope(ctx context.Context, evt socketmode.Event) (any, func(context.Context)) {
	cmd, ok := evt.Data.(goslack.SlashCommand)
	if !ok || !b.first(ctx, envelopeID(evt)) {
		return nil, nil
	}
	return b.onSlashCommand(ctx, cmd)
}

// ack acks evt with payload (nil for a bare ack). It gives up when the
// bot stops or the socket does not take it within a second.
func (b *Bot) ack(ctx context.Context, evt socketmode.Event, payload any) {
	if evt.Request == nil || evt.Request.EnvelopeID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := b.sm.AckCtx(ctx, evt.Request.EnvelopeID, payload); err != nil {
		b.log.Error("slack ack failed", "envelope", evt.Request.EnvelopeID, "err", err)
	}
}

// teamOf is the workspace an envelope comes from ("" when it names none).
func teamOf(evt socketmode.Event) string {
	switch d := evt.Data.(type) {
	case slackevents.EventsAPIEvent:
		return d.TeamID
	case goslack.InteractionCallback:
		return d.Team.ID
	case goslack.SlashCommand:
		return d.TeamID
	}
	return ""
}

func envelopeID(evt socketmode.Event) string {
	if evt.Request == nil {
		return ""
	}
	return "env:" + evt.Request.EnvelopeID
}

func eventID(ev slackevents.EventsAPIEvent) string {
	if cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent); ok && cb.EventID != "" {
		return "evt:" + cb.EventID
	}
	return ""
}
