package slack

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	goslack "github.com/slack-go/slack"
)

// kindAlert posts an alert's start or clear to the alert channel. Its
// QuestionID is "alert:<seq>", the event that records it.
const kindAlert = "alert"

// alertDeliveries turns an alert event into a post to the alert
// channel, when one is configured. Like every delivery of an event, it
// names the event, so that an outbox shared by replicas that projected
// the same event enqueues it once.
func (b *Bot) alertDeliveries(ev *hitl.Event) []hitl.Delivery {
	if ev.Type != hitl.EventAlert || ev.Alert == nil || b.cfg.AlertsChannel == "" {
		return nil
	}
	return []hitl.Delivery{{Kind: kindAlert, QuestionID: "alert:" + strconv.FormatUint(ev.Seq, 10), Target: b.cfg.AlertsChannel, Event: ev.Seq}}
}

// doAlert posts the alert event d names, as it was recorded, unless the
// process that held d before died having posted it (its mark names the
// event).
func (b *Bot) doAlert(ctx context.Context, d hitl.Delivery) error {
	seq, err := strconv.ParseUint(strings.TrimPrefix(d.QuestionID, "alert:"), 10, 64)
	if err != nil || seq == 0 {
		return b.record(ctx, d, nil) // not one of ours: nothing to post
	}
	evs, _, err := b.svc.Log.Events(ctx, seq-1, 1)
	if err != nil {
		return fmt.Errorf("%w: %v", errStoreWrite, err)
	}
	if len(evs) == 0 || evs[0].Seq != seq || evs[0].Alert == nil {
		return b.record(ctx, d, nil) // pruned since
	}
	if changed, err := b.svc.Alerts.AlertChanged(ctx, evs[0]); err != nil {
		return fmt.Errorf("%w: %v", errStoreWrite, err)
	} else if !changed {
		return b.record(ctx, d, nil) // a repeat another replica logged at the same time
	}
	mark := alertMark(seq)
	_, found, err := b.alreadyPosted(ctx, d, d.Target, "", mark)
	if err != nil {
		return err
	}
	if !found {
		msg := blocks.AlertMessage(*evs[0].Alert)
		if _, _, err := b.api.PostMessageContext(ctx, d.Target,
			goslack.MsgOptionText(msg.Text, false), goslack.MsgOptionBlocks(msg.Blocks...), mark.option()); err != nil {
			return err
		}
	}
	return b.record(ctx, d, nil)
}
