package slack

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/hitlbot/hitl/auth"
	"github.com/hitlbot/hitl/blocks"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/runhandle"
	"github.com/hitlbot/hitl/steer"
	goslack "github.com/slack-go/slack"
)

// controlHandler handles a click on a run's or a rule's button.
type controlHandler func(ctx context.Context, c click, blockID, value string) error

// registerControls registers a handler per action id of the buttons that
// are not about a question: a run's live message, the learned rules list.
func (b *Bot) registerControls() {
	command := func(c steer.Command) controlHandler {
		return func(ctx context.Context, cl click, blockID, value string) error {
			a, err := blocks.ParseRunAction(cl.actionID, blockID, value)
			if err != nil {
				return err
			}
			return b.steer(ctx, cl.user, c, a.RunID, steer.ControlPayload{})
		}
	}
	modal := func(render func(run, channel, ts string) goslack.ModalViewRequest) controlHandler {
		return func(ctx context.Context, cl click, blockID, value string) error {
			a, err := blocks.ParseRunAction(cl.actionID, blockID, value)
			if err != nil {
				return err
			}
			if err := b.cfg.Access.Authorize(b.slackPrincipal(ctx, cl.user), auth.ActionSteer, nil); err != nil {
				return controlRefusal(err)
			}
			if _, err := b.api.OpenViewContext(ctx, cl.triggerID, render(a.RunID, cl.channel, cl.messageTS)); err != nil {
				b.log.Warn("opening a modal failed", "run", a.RunID, "err", err)
				return fault.Errorf(fault.EUNAVAILABLE, "Slack did not open the form (%v); please click again", err)
			}
			return nil
		}
	}
	b.controls = map[string]controlHandler{
		blocks.ActionRunPause:  command(steer.CommandPause),
		blocks.ActionRunResume: command(steer.CommandResume),
		blocks.ActionRunCancel: command(steer.CommandCancel),
		blocks.ActionRunEscalate: modal(func(run, channel, ts string) goslack.ModalViewRequest {
			return blocks.EscalateModal(run, b.cfg.Models, channel, ts)
		}),
		blocks.ActionRunRedirect: modal(blocks.RedirectModal),
		blocks.ActionRevokeRule:  b.revokeClick,
		blocks.ActionReview:      b.reviewClick,    // batch.go
		blocks.ActionBatchPrev:   b.batchPageClick, // batch.go
		blocks.ActionBatchNext:   b.batchPageClick,
	}
}

// slackPrincipal is Slack user user with the rights config gives, their
// membership of the groups config names looked up.
func (b *Bot) slackPrincipal(ctx context.Context, user string) auth.Principal {
	return b.cfg.Access.SlackPrincipal(user, b.groups.memberOf(ctx, user, b.cfg.Access.Groups(nil)))
}

// control sends a REQUEST as Slack user user and returns its ACK (when
// there is one) and its RESULT.
func (b *Bot) control(ctx context.Context, user string, c steer.Command, run string, p steer.ControlPayload) (ack *steer.ControlMessage, result steer.ControlMessage, err error) {
	pctx := auth.WithPrincipal(ctx, b.slackPrincipal(ctx, user))
	req := steer.NewRequest(uuid.NewString(), c, run, b.cfg.Clock.Now(), p)
	msgs, err := b.svc.Runs.Control(pctx, req)
	if err != nil {
		return nil, result, err
	}
	for i := range msgs {
		switch msgs[i].Type {
		case steer.MessageAck:
			ack = &msgs[i]
		case steer.MessageResult:
			result = msgs[i]
		}
	}
	if result.Type == "" {
		return ack, result, fault.Errorf(fault.EUNAVAILABLE, "hitl received the request but did not say how it went: try /hitl status %s", run)
	}
	return ack, result, nil
}

// steer sends a command from a button or a modal: a failure comes back as
// an error in plain words; success shows in the run's live message.
func (b *Bot) steer(ctx context.Context, user string, c steer.Command, run string, p steer.ControlPayload) error {
	_, result, err := b.control(ctx, user, c, run, p)
	if err != nil {
		return err
	}
	if _, failed := result.Failed(); failed {
		return shown(blocks.ControlText(result))
	}
	return nil
}

// shown is an error whose text is shown to the user as it is.
type shown string

func (s shown) Error() string { return string(s) }

// controlRefusal words a refusal to steer.
func controlRefusal(err error) error {
	return shown("🚫 You're not allowed to steer runs: " + blocks.Escape(fault.Message(err)) + ".")
}

// onSteerSubmission runs an Escalate or Redirect modal's command. A
// failure is shown under the modal's input, and the modal stays open.
func (b *Bot) onSteerSubmission(ctx context.Context, cb goslack.InteractionCallback) any {
	s, err := blocks.ParseSteerSubmission(cb.View.CallbackID, cb.View.PrivateMetadata, cb.View.State.Values)
	if err == nil {
		err = b.steer(ctx, cb.User.ID, s.Command, s.RunID, s.Payload)
	}
	if err == nil {
		return nil
	}
	block := s.ErrorBlock
	if block == "" {
		block = blocks.BlockModel
	}
	return goslack.NewErrorsViewSubmissionResponse(map[string]string{block: blocks.PlainText(errorText(err))})
}

// revokeClick revokes a learned rule from the list's Revoke button.
func (b *Bot) revokeClick(ctx context.Context, c click, blockID, value string) error {
	id, err := blocks.ParseRevoke(blockID, value)
	if err != nil {
		return err
	}
	r, err := b.svc.Policies.RevokeRule(auth.WithPrincipal(ctx, b.slackPrincipal(ctx, c.user)), id)
	if err != nil {
		return err
	}
	return shown(blocks.RevokedText(r)) // not an error: told the same way
}

// resolveRun names a run for Slack user user: its exact id, or a unique
// prefix of a run's id (its handle), among the runs user may see (the lookup
// runs as them, so a prefix never reveals another's run).
func (b *Bot) resolveRun(ctx context.Context, user, name string) (string, error) {
	if steer.ValidateRunID(name) != nil {
		return "", shown("⚠️ `" + blocks.Escape(strings.ReplaceAll(name, "`", "'")) + "` is not a run id.")
	}
	matches, err := runhandle.Match(auth.WithPrincipal(ctx, b.slackPrincipal(ctx, user)), b.svc.Runs, name)
	if err != nil && fault.Code(err) != fault.EFORBIDDEN {
		return "", err
	}
	switch len(matches) {
	case 0:
		return "", shown("⚠️ No run is named `" + blocks.Escape(name) + "` or starts with it. `/hitl runs` lists them.")
	case 1:
		return matches[0], nil
	}
	if len(matches) > 5 {
		matches = append(matches[:5], "…")
	}
	return "", shown("⚠️ `" + blocks.Escape(name) + "` matches several runs (" + blocks.Escape(strings.Join(matches, ", ")) + "): type more of the id.")
}
