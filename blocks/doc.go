// Package blocks renders hitl's domain values as Slack Block Kit (question
// messages, their settled form, modals, the App Home) and parses what Slack
// sends back (block actions, view submissions). It is pure: no network, no
// Slack client, no clock (the time comes in MessageOptions).
//
// # Safety
//
// Agent text is untrusted. In mrkdwn it is escaped (& < > become &amp; &lt;
// &gt;), so it can never mention anyone (<!channel>, <!here>, <@U…>), ping a
// user group or make a link; elsewhere it goes in plain_text objects, which
// Slack shows as is. Every mrkdwn object is verbatim, so Slack does not
// auto-link bare "@channel", channel names or URLs either (the bot should
// post without parse=full or link_names). Characters that are invisible or
// change the direction text reads in (bidi overrides and isolates,
// zero-width characters, controls) are shown as their code points
// (<U+202E>, package visible) and flagged: the question, the resource
// and each diff line that holds one say it "contains characters that
// change how it reads". The only mentions rendered are the
// question's assignees (<@U…>, <!subteam^S…>) and Slack responders
// (RespondedBy "slack:U…"). A sensitive answer (its value and its note) is
// never rendered anywhere.
//
// Every renderer stays within Slack's limits (see the Max constants, counted
// with Len): long text is cut with a visible marker. A question cut in a
// message sets Message.Truncated; the bot then posts FullTextChunks in the
// thread.
//
// # Action ids (block_actions)
//
// Every input of a question is in one actions block whose block_id is
// "q:<questionId>" (BlockID). Its elements' action ids are "hitl/<verb>":
//
//	hitl/approve       button, grant an approval
//	hitl/deny          button, open DenyModal (reason)
//	hitl/approve_msg   button, open ApproveModal (message)
//	hitl/yes, hitl/no  buttons of a boolean question
//	hitl/choose/<i>    button of option i (up to MaxButtonChoices options);
//	                   its value is i too. The index is in the action id
//	                   because action ids must be unique within a block.
//	hitl/select        static_select (more options); the selected option's
//	                   value is the option index
//	hitl/answer        button, open AnswerModal
//
// Option indexes are decimal, 0-based positions in Question.Options.
// ParseAction(actionID, blockID, value) returns the Action (verb, question
// id, option index or -1) or an EINVALID *fault.Error; route on Action.Verb.
// ActionIDs lists every action id for handlers registered by exact id.
//
// # Modals (view_submission)
//
//	callback_id    input block_id / action_id   value
//	hitl/answer    answer / value               the answer (required)
//	hitl/deny      reason / value               the reason (optional)
//	hitl/approve   message / value              the message (optional)
//
// Their private_metadata is compact JSON
// {"q":"<questionId>","c":"<channel>","ts":"<message ts>"} (c and ts empty
// when opened from the App Home). ParseSubmission(callbackID,
// privateMetadata, state values) returns the Submission or an EINVALID
// *fault.Error.
package blocks
