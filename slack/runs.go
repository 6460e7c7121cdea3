package slack

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	goslack "github.com/slack-go/slack"
)

// kindRun is the delivery that brings a run's live message up to date
// (posting it the first time). Its QuestionID and Target are runKey(id):
// each run has its own worker, so one run's pacing never holds another's.
const kindRun = "run"

// runKey names a run's live message in the delivery records.
func runKey(id string) string { return "run:" + id }

// runDeliveries turns an event into an update of its run's live message:
// a loop:current report, a successful control RESULT, and, once the run
// has a live message, a change of its questions (what it waits on).
func (b *Bot) runDeliveries(ctx context.Context, ev *hitl.Event) ([]hitl.Delivery, error) {
	if b.cfg.RunsChannel == "" || ev.RunID == "" {
		return nil, nil
	}
	switch ev.Type {
	case hitl.EventRunState:
	case hitl.EventControl:
		if ev.Control == nil || ev.Control.Type != steer.MessageResult || ev.Control.Payload.Status != steer.ResultSuccess {
			return nil, nil
		}
	case hitl.EventQuestionAsked, hitl.EventQuestionAnswered, hitl.EventQuestionTimeout, hitl.EventQuestionCancelled:
		refs, err := b.outbox.Delivered(ctx, runKey(ev.RunID))
		if err != nil || len(refs) == 0 {
			return nil, err
		}
	default:
		return nil, nil
	}
	k := runKey(ev.RunID)
	return []hitl.Delivery{{Kind: kindRun, QuestionID: k, Target: k}}, nil
}

// doRun renders the run as it is now into its live message: posted the
// first time, updated in place after, at most once per RunUpdateEvery.
// Every update of the run queued before the render is covered by it and
// completed without a call: a burst becomes one update.
func (b *Bot) doRun(ctx context.Context, d hitl.Delivery) error {
	id := strings.TrimPrefix(d.QuestionID, "run:")
	if wait := b.runs.wait(id); wait > 0 {
		select {
		case <-b.cfg.After(wait):
		case <-b.done:
			return errStopping
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	covered := max(b.enqueued.Load(), d.Seq)
	run, err := b.svc.Runs.RunRecord(ctx, id)
	switch {
	case fault.Code(err) == fault.ENOTFOUND || fault.Code(err) == fault.EINVALID:
		return b.record(ctx, d, nil)
	case err != nil:
		return errors.Join(errStoreWrite, err)
	case run.Control.Status == "":
		return b.record(ctx, d, nil) // a run of questions only: not steerable
	}
	refs, err := b.outbox.Delivered(ctx, d.QuestionID)
	if err != nil {
		return errors.Join(errStoreWrite, err)
	}
	msg := blocks.RunMessage(blocks.RunView{Run: run, WaitingLink: b.waitingLink(ctx, run), Now: b.cfg.Clock.Now()})
	opts := []goslack.MsgOption{goslack.MsgOptionText(msg.Text, false), goslack.MsgOptionBlocks(msg.Blocks...)}
	var rec *hitl.Delivered // the first post's record
	if len(refs) > 0 {
		_, _, _, err = b.api.UpdateMessageContext(ctx, refs[0].Channel, refs[0].TS, opts...)
	} else {
		rec, err = b.postRun(ctx, d, id, opts)
	}
	if err != nil {
		return err
	}
	if err := b.record(ctx, d, rec); err != nil {
		return err
	}
	b.runs.wrote(id, !run.Control.Status.Active())
	b.skipCovered(ctx, d.Target, covered)
	return nil
}

// postRun posts run id's live message and returns its record. When the
// process that held d before died, it looks first: a live message that
// process posted is brought up to date in place, not posted again.
func (b *Bot) postRun(ctx context.Context, d hitl.Delivery, id string, opts []goslack.MsgOption) (*hitl.Delivered, error) {
	mark := runMark(id)
	ts, found, err := b.alreadyPosted(ctx, d, b.cfg.RunsChannel, "", mark)
	if err != nil {
		return nil, err
	}
	channel := b.cfg.RunsChannel
	if found {
		_, _, _, err = b.api.UpdateMessageContext(ctx, channel, ts, opts...)
	} else {
		channel, ts, err = b.api.PostMessageContext(ctx, channel, append(opts, mark.option())...)
	}
	if err != nil {
		return nil, err
	}
	return &hitl.Delivered{QuestionID: d.QuestionID, Target: d.Target, Channel: channel, TS: ts, PostedAt: b.cfg.Clock.Now()}, nil
}

// skipCovered completes target's queued run updates up to seq: the render
// that just ran read the run after their events.
func (b *Bot) skipCovered(ctx context.Context, target string, seq uint64) {
	for {
		next, err := b.outbox.NextDelivery(ctx, target)
		if err != nil || next.Seq > seq || next.Kind != kindRun {
			return
		}
		if err := b.outbox.Complete(ctx, next, nil); err != nil {
			return // done again later: harmless
		}
	}
}

// waitingLink is the permalink of the message of the question the run
// waits on, or "".
func (b *Bot) waitingLink(ctx context.Context, run *hitl.Run) string {
	if run.WaitingOn == nil || !run.Control.Status.Active() {
		return ""
	}
	refs, err := b.outbox.Delivered(ctx, run.WaitingOn.QuestionID)
	if err != nil || len(refs) == 0 {
		return ""
	}
	return b.links.get(ctx, refs[0].Channel, refs[0].TS)
}

// redrawLinked queues an update of the live message of q's run once q's
// message is recorded, when the run waits on q: the run's worker may have
// read the run before the record and drawn "Waiting on" without the link,
// and no event would draw it again. The update costs a chat.update only
// then: a render that starts after the record covers it (skipCovered).
// Were the update lost (the store failing here), the next one of the run
// draws the link.
func (b *Bot) redrawLinked(ctx context.Context, q *hitl.Question) {
	if b.cfg.RunsChannel == "" || q.RunID == "" || !q.Pending() {
		return
	}
	run, err := b.svc.Runs.RunRecord(ctx, q.RunID)
	if err != nil || run.WaitingOn == nil || run.WaitingOn.QuestionID != q.ID || !run.Control.Status.Active() {
		return
	}
	k := runKey(q.RunID)
	if err := b.enqueueOwn(ctx, []hitl.Delivery{{Kind: kindRun, QuestionID: k, Target: k}}); err != nil {
		b.log.Warn("slack outbox: queueing the update that links a run's question failed", "run", q.RunID, "question", q.ID, "err", err)
	}
}

// runThread returns where a question of run goes when it has no channel
// or assignee of its own: the thread of the run's live message.
func (b *Bot) runThread(ctx context.Context, q *hitl.Question) (channel, ts string) {
	if b.cfg.RunsChannel == "" || q.Channel != "" || len(q.Assignees) > 0 || q.RunID == "" {
		return "", ""
	}
	refs, err := b.outbox.Delivered(ctx, runKey(q.RunID))
	if err != nil || len(refs) == 0 {
		return "", ""
	}
	return refs[0].Channel, refs[0].TS
}

// runPace remembers when each run's live message was last written.
type runPace struct {
	clock hitl.Clock
	every time.Duration

	mu   sync.Mutex
	last map[string]time.Time
}

func newRunPace(clock hitl.Clock, every time.Duration) *runPace {
	return &runPace{clock: clock, every: every, last: map[string]time.Time{}}
}

// wait is how long run's next write must wait.
func (p *runPace) wait(run string) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	at, ok := p.last[run]
	if !ok {
		return 0
	}
	return at.Add(p.every).Sub(p.clock.Now())
}

// wrote records a write of run's message; an ended run is forgotten.
func (p *runPace) wrote(run string, ended bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ended {
		delete(p.last, run)
		return
	}
	p.last[run] = p.clock.Now()
}

// permalinks caches chat.getPermalink answers.
type permalinks struct {
	api slackAPI

	mu    sync.Mutex
	links map[string]string
}

func newPermalinks(api slackAPI) *permalinks {
	return &permalinks{api: api, links: map[string]string{}}
}

func (p *permalinks) get(ctx context.Context, channel, ts string) string {
	key := channel + "/" + ts
	p.mu.Lock()
	link, ok := p.links[key]
	p.mu.Unlock()
	if ok {
		return link
	}
	link, err := p.api.GetPermalinkContext(ctx, &goslack.PermalinkParameters{Channel: channel, Ts: ts})
	if err != nil {
		return ""
	}
	p.mu.Lock()
	if len(p.links) > 1000 {
		p.links = map[string]string{}
	}
	p.links[key] = link
	p.mu.Unlock()
	return link
}
