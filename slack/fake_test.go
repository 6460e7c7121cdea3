package slack

import (
	"context"
	"errors"
	"net/url"
	"sync"

	goslack "github.com/slack-go/slack"
)

// fakeAPI is a hand-written slackAPI: each method calls its function field
// when set, else answers a plain success. Calls are counted by method.
type fakeAPI struct {
	mu    sync.Mutex
	calls map[string]int

	PostMessage         func(ctx context.Context, channel string, msg url.Values) (string, string, error)
	UpdateMessage       func(ctx context.Context, channel, ts string, msg url.Values) error
	PostEphemeral       func(ctx context.Context, channel, user string, msg url.Values) error
	OpenConversation    func(ctx context.Context, users []string) (string, error)
	OpenView            func(ctx context.Context, triggerID string, view goslack.ModalViewRequest) error
	PublishView         func(ctx context.Context, req goslack.PublishViewContextRequest) error
	AddReaction         func(ctx context.Context, name string, item goslack.ItemRef) error
	GetUserGroupMembers func(ctx context.Context, group string) ([]string, error)
	// GetUserInfo answers users.info (nil: user_not_found).
	GetUserInfo func(ctx context.Context, user string) (*goslack.User, error)
	// History answers conversations.history and conversations.replies
	// (thread is "" for the channel's history).
	History func(ctx context.Context, channel, thread string) ([]goslack.Message, error)
}

var _ slackAPI = (*fakeAPI)(nil)

func (f *fakeAPI) count(method string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[method]++
}

// Calls returns how many times method was called.
func (f *fakeAPI) Calls(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[method]
}

// values renders message options the way slack-go sends them.
func values(channel string, opts []goslack.MsgOption) url.Values {
	_, v, err := goslack.UnsafeApplyMsgOptions("", channel, "", opts...)
	if err != nil {
		panic(err)
	}
	return v
}

func (f *fakeAPI) GetUserInfoContext(ctx context.Context, user string, _ ...goslack.GetUserInfoOption) (*goslack.User, error) {
	f.count("users.info")
	if f.GetUserInfo != nil {
		return f.GetUserInfo(ctx, user)
	}
	return nil, goslack.SlackErrorResponse{Err: "user_not_found"}
}

func (f *fakeAPI) GetUserByEmailContext(context.Context, string) (*goslack.User, error) {
	f.count("users.lookupByEmail")
	return nil, goslack.SlackErrorResponse{Err: "users_not_found"}
}

func (f *fakeAPI) AuthTestContext(context.Context) (*goslack.AuthTestResponse, error) {
	f.count("auth.test")
	return &goslack.AuthTestResponse{UserID: "U0BOT", BotID: "B0BOT", TeamID: "T0TEST"}, nil
}

func (f *fakeAPI) PostMessageContext(ctx context.Context, channel string, opts ...goslack.MsgOption) (string, string, error) {
	f.count("chat.postMessage")
	if f.PostMessage != nil {
		return f.PostMessage(ctx, channel, values(channel, opts))
	}
	return channel, "1700000000.000100", nil
}

func (f *fakeAPI) UpdateMessageContext(ctx context.Context, channel, ts string, opts ...goslack.MsgOption) (string, string, string, error) {
	f.count("chat.update")
	if f.UpdateMessage != nil {
		return channel, ts, "", f.UpdateMessage(ctx, channel, ts, values(channel, opts))
	}
	return channel, ts, "", nil
}

func (f *fakeAPI) PostEphemeralContext(ctx context.Context, channel, user string, opts ...goslack.MsgOption) (string, error) {
	f.count("chat.postEphemeral")
	if f.PostEphemeral != nil {
		return "", f.PostEphemeral(ctx, channel, user, values(channel, opts))
	}
	return "1700000000.000200", nil
}

func (f *fakeAPI) OpenConversationContext(ctx context.Context, p *goslack.OpenConversationParameters) (*goslack.Channel, bool, bool, error) {
	f.count("conversations.open")
	id := "D" + p.Users[0]
	if f.OpenConversation != nil {
		var err error
		if id, err = f.OpenConversation(ctx, p.Users); err != nil {
			return nil, false, false, err
		}
	}
	ch := &goslack.Channel{}
	ch.ID = id
	return ch, false, false, nil
}

func (f *fakeAPI) OpenViewContext(ctx context.Context, triggerID string, view goslack.ModalViewRequest) (*goslack.ViewResponse, error) {
	f.count("views.open")
	if f.OpenView != nil {
		if err := f.OpenView(ctx, triggerID, view); err != nil {
			return nil, err
		}
	}
	return &goslack.ViewResponse{}, nil
}

func (f *fakeAPI) UpdateViewContext(ctx context.Context, view goslack.ModalViewRequest, externalID, hash, viewID string) (*goslack.ViewResponse, error) {
	f.count("views.update")
	return &goslack.ViewResponse{}, nil
}

func (f *fakeAPI) PublishViewContext(ctx context.Context, req goslack.PublishViewContextRequest) (*goslack.ViewResponse, error) {
	f.count("views.publish")
	if f.PublishView != nil {
		if err := f.PublishView(ctx, req); err != nil {
			return nil, err
		}
	}
	return &goslack.ViewResponse{}, nil
}

func (f *fakeAPI) AddReactionContext(ctx context.Context, name string, item goslack.ItemRef) error {
	f.count("reactions.add")
	if f.AddReaction != nil {
		return f.AddReaction(ctx, name, item)
	}
	return nil
}

func (f *fakeAPI) GetUserGroupMembersContext(ctx context.Context, group string, _ ...goslack.GetUserGroupMembersOption) ([]string, error) {
	f.count("usergroups.users.list")
	if f.GetUserGroupMembers != nil {
		return f.GetUserGroupMembers(ctx, group)
	}
	return nil, errors.New("no_such_subteam")
}

func (f *fakeAPI) GetPermalinkContext(_ context.Context, p *goslack.PermalinkParameters) (string, error) {
	f.count("chat.getPermalink")
	return "https://example.slack.com/archives/" + p.Channel + "/p" + p.Ts, nil
}

func (f *fakeAPI) GetConversationHistoryContext(ctx context.Context, p *goslack.GetConversationHistoryParameters) (*goslack.GetConversationHistoryResponse, error) {
	f.count("conversations.history")
	res := &goslack.GetConversationHistoryResponse{}
	if f.History != nil {
		msgs, err := f.History(ctx, p.ChannelID, "")
		res.Messages = msgs
		return res, err
	}
	return res, nil
}

func (f *fakeAPI) GetConversationRepliesContext(ctx context.Context, p *goslack.GetConversationRepliesParameters) ([]goslack.Message, bool, string, error) {
	f.count("conversations.replies")
	if f.History != nil {
		msgs, err := f.History(ctx, p.ChannelID, p.Timestamp)
		return msgs, false, "", err
	}
	return nil, false, "", nil
}
