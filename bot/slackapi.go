package bot

import (
	"context"

	"github.com/slack-go/slack"
)

// slackAPI is the part of Slack's Web API the bot calls. *slack.Client is
// it; unit tests of the bot's rules use fakeAPI (fake_test.go).
type slackAPI interface {
	AuthTestContext(ctx context.Context) (*slack.AuthTestResponse, error)
	PostMessageContext(ctx context.Context, channel string, opts ...slack.MsgOption) (respChannel, ts string, err error)
	UpdateMessageContext(ctx context.Context, channel, ts string, opts ...slack.MsgOption) (string, string, string, error)
	PostEphemeralContext(ctx context.Context, channel, user string, opts ...slack.MsgOption) (string, error)
	OpenConversationContext(ctx context.Context, params *slack.OpenConversationParameters) (*slack.Channel, bool, bool, error)
	OpenViewContext(ctx context.Context, triggerID string, view slack.ModalViewRequest) (*slack.ViewResponse, error)
	// UpdateViewContext shows another page in an open modal (batch.go).
	UpdateViewContext(ctx context.Context, view slack.ModalViewRequest, externalID, hash, viewID string) (*slack.ViewResponse, error)
	PublishViewContext(ctx context.Context, req slack.PublishViewContextRequest) (*slack.ViewResponse, error)
	AddReactionContext(ctx context.Context, name string, item slack.ItemRef) error
	GetUserGroupMembersContext(ctx context.Context, group string, opts ...slack.GetUserGroupMembersOption) ([]string, error)
	GetPermalinkContext(ctx context.Context, params *slack.PermalinkParameters) (string, error)
	// GetUserInfoContext reads a profile: the email fallback's address
	// (email.go).
	GetUserInfoContext(ctx context.Context, user string, options ...slack.GetUserInfoOption) (*slack.User, error)
	// GetUserByEmailContext finds the Slack user of an e-mail: a person
	// signed in to the web with the identity provider is that Slack user
	// (email.go).
	GetUserByEmailContext(ctx context.Context, email string) (*slack.User, error)
	// GetConversationHistoryContext and GetConversationRepliesContext
	// look for a post a stopped replica may have made (resume.go).
	GetConversationHistoryContext(ctx context.Context, params *slack.GetConversationHistoryParameters) (*slack.GetConversationHistoryResponse, error)
	GetConversationRepliesContext(ctx context.Context, params *slack.GetConversationRepliesParameters) (msgs []slack.Message, hasMore bool, nextCursor string, err error)
}

var _ slackAPI = (*slack.Client)(nil)
