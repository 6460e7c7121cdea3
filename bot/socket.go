package bot

import (
	"context"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

// identity is who the bot is in Slack, from auth.test, so it can ignore its
// own messages by user and bot id (not by subtype).
type identity struct {
	mu     sync.RWMutex
	userID string
	botID  string
}

func (i *identity) set(userID, botID string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.userID, i.botID = userID, botID
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
			delay = b.backoff(delay)
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
		delay = b.backoff(delay)
		b.log.Warn("slack socket mode stopped; reconnecting", "err", err, "in", delay)
		sleep(ctx, delay)
	}
}

func (b *Bot) authenticate(ctx context.Context) error {
	res, err := b.api.AuthTestContext(ctx)
	if err != nil {
		return err
	}
	b.identity.set(res.UserID, res.BotID)
	return nil
}

// consume handles Socket Mode events. Answers (clicks, modal submissions)
// are recorded before the ack, within a budget that keeps Slack's 3 s
// deadline, so an acked answer is durable; everything else is acked at once
// and done after. Redeliveries are acked and dropped.
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
		case socketmode.EventTypeEventsAPI:
			ev, ok := evt.Data.(slackevents.EventsAPIEvent)
			var after func(context.Context)
			if ok && b.seen.first(envelopeID(evt), eventID(ev)) {
				after = b.onEventsAPI(ctx, ev)
			}
			b.ack(evt, nil)
			if after != nil {
				go after(ctx)
			}
		case socketmode.EventTypeInteractive:
			cb, ok := evt.Data.(slack.InteractionCallback)
			if !ok || !b.seen.first(envelopeID(evt)) {
				b.ack(evt, nil)
				continue
			}
			if cb.Type == slack.InteractionTypeViewSubmission {
				b.ack(evt, b.onViewSubmission(ctx, cb))
				continue
			}
			if cb.Type != slack.InteractionTypeBlockActions {
				b.ack(evt, nil)
				continue
			}
			notes := b.onBlockActions(ctx, cb)
			b.ack(evt, nil)
			go func() {
				for _, n := range notes {
					b.tell(ctx, n.channel, n.user, n.text)
				}
			}()
		case socketmode.EventTypeSlashCommand:
			cmd, ok := evt.Data.(slack.SlashCommand)
			if !ok || !b.seen.first(envelopeID(evt)) {
				b.ack(evt, nil)
				continue
			}
			b.ack(evt, b.onSlashCommand(ctx, cmd))
		}
	}
}

func (b *Bot) ack(evt socketmode.Event, payload any) {
	if evt.Request == nil || evt.Request.EnvelopeID == "" {
		return
	}
	var err error
	if payload == nil {
		err = b.sm.Ack(*evt.Request)
	} else {
		err = b.sm.Ack(*evt.Request, payload)
	}
	if err != nil {
		b.log.Error("slack ack failed", "envelope", evt.Request.EnvelopeID, "err", err)
	}
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
