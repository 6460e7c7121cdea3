package watch

import (
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/steer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRequest(t *testing.T) {
	for _, tc := range []struct {
		name, in, wantErr string
		want              Request
	}{
		{name: "the file bridge's example", in: `{"prompt":"Which database to migrate?","input_type":"text","timestamp":"2025-10-01T10:00:00.000Z"}`,
			want: Request{Prompt: "Which database to migrate?", InputType: hitl.TextInput, Timestamp: "2025-10-01T10:00:00.000Z"}},
		{name: "sensitive password", in: `{"prompt":"Key?","input_type":"password","sensitive":true}`,
			want: Request{Prompt: "Key?", InputType: hitl.PasswordInput, Sensitive: true}},
		{name: "no input type", in: `{"prompt":"Ok?"}`, want: Request{Prompt: "Ok?"}},
		{name: "not JSON", in: `prompt: x`, wantErr: "it is not a JSON object"},
		{name: "an array", in: `["x"]`, wantErr: "it is not a JSON object"},
		{name: "sensitive not a bool", in: `{"prompt":"x","sensitive":"yes"}`, wantErr: "it is not a JSON object"},
		{name: "two values", in: `{"prompt":"x"}{"prompt":"y"}`, wantErr: "more than one JSON value"},
		{name: "empty prompt", in: `{"prompt":"  "}`, wantErr: "its prompt is missing or empty"},
		{name: "larger than a request file may be", in: `{"prompt":"x"}` + strings.Repeat(" ", MaxRequestFile), wantErr: "it is larger than 65536 bytes"},
		{name: "unknown input type", in: `{"prompt":"x","input_type":"file"}`, wantErr: `its input_type "file" is not text, password or confirmation`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRequest([]byte(tc.in))
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, fault.EINVALID, fault.Code(err))
				assert.Contains(t, fault.Message(err), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestKey(t *testing.T) {
	a := []byte(`{"prompt":"x","timestamp":"2025-10-01T10:00:00.000Z"}`)
	b := []byte(`{"prompt":"x","timestamp":"2025-10-01T10:00:01.000Z"}`)
	k := Key("/w/a/.delta/interaction/request.json", a)
	assert.Equal(t, k, Key("/w/a/.delta/interaction/request.json", a), "the same request is the same question")
	assert.Equal(t, k, Key("/w/a/.delta/interaction/../interaction/request.json", a), "however the path is spelled")
	assert.NotEqual(t, k, Key("/w/a/.delta/interaction/request.json", b), "a new timestamp is a new question")
	assert.NotEqual(t, k, Key("/w/b/.delta/interaction/request.json", a), "another directory is another question")
	assert.LessOrEqual(t, len(k), hitl.MaxKeyLen)
}

func TestRunName(t *testing.T) {
	n := RunName("/home/me/agents/deploy bot")
	assert.Regexp(t, `^watch-deploy_bot-[0-9a-f]{8}$`, n)
	assert.NoError(t, steer.ValidateRunID(n))
	assert.Equal(t, n, RunName("/home/me/agents/deploy bot/"))
	assert.NotEqual(t, n, RunName("/srv/deploy bot"), "two directories of one name are two runs")
	long := RunName("/x/" + string(make([]byte, 300)))
	assert.NoError(t, steer.ValidateRunID(long+"@api:some-agent-name"))
}
