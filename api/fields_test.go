package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/stretchr/testify/require"
)

type probeInner struct {
	Label string `json:"label"`
}

type probeEmbedded struct {
	Deep string `json:"deep"`
}

type probe struct {
	Name  string                `json:"name"`
	Inner *probeInner           `json:"inner,omitempty"`
	List  []probeInner          `json:"list"`
	Map   map[string]probeInner `json:"map"`
	Any   any                   `json:"any"`
	Raw   json.RawMessage       `json:"raw"`
	Skip  string                `json:"-"`
	Plain int
	N     float64 `json:"n"`
	probeEmbedded
	hidden string //nolint:unused // unexported: never a JSON field
}

// decode runs decodeBody on body, as a handler would.
func decode(body string, v any) error {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	return decodeBody(httptest.NewRecorder(), req, 1<<20, v, true)
}

func TestDecodeBodyFieldNames(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"exact_names_are_accepted", `{"name":"x","inner":{"label":"a"},"list":[{"label":"b"}],"map":{"Any Key":{"label":"c"}},"Plain":1,"deep":"d","n":1.5}`},
		{"any_fields_take_any_keys", `{"any":{"Whatever":{"NESTED":[1,{"k":2}]}}}`},
		{"raw_fields_are_not_looked_into", `{"raw":{"Whatever":1e999}}`},
		{"null_everywhere_is_accepted", `{"name":null,"inner":null,"list":null,"map":null}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p probe
			require.NoError(t, decode(tc.body, &p))
		})
	}
	for _, tc := range []struct{ name, body, want string }{
		{"wrong_case_is_refused_with_the_spelling", `{"Name":"x"}`, `unknown field "Name" in the request body: did you mean "name"?`},
		{"wrong_case_in_a_pointer_struct_is_refused", `{"inner":{"Label":"a"}}`, `unknown field "Label" in inner: did you mean "label"?`},
		{"wrong_case_in_a_slice_element_is_refused", `{"list":[{"label":"a"},{"LABEL":"b"}]}`, `unknown field "LABEL" in list[1]`},
		{"wrong_case_in_a_map_value_is_refused", `{"map":{"k":{"labeL":"b"}}}`, `unknown field "labeL" in map.k`},
		{"wrong_case_of_an_embedded_field_is_refused", `{"Deep":"d"}`, `did you mean "deep"?`},
		{"untagged_field_needs_its_go_name", `{"plain":1}`, `did you mean "Plain"?`},
		{"dash_field_is_unknown", `{"Skip":"x"}`, `unknown field "Skip"`},
		{"unexported_field_is_unknown", `{"hidden":"x"}`, `unknown field "hidden"`},
		{"unknown_field_lists_the_fields", `{"nope":1}`, `use Plain, any, deep, inner, list, map, n, name, raw`},
		{"huge_number_names_its_field", `{"n":1e999}`, `n: 1e999 is out of range`},
		{"huge_number_in_any_names_its_path", `{"any":{"a":[0,-1e400]}}`, `any.a[1]: -1e400 is out of range`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p probe
			err := decode(tc.body, &p)
			require.Equal(t, fault.EINVALID, fault.Code(err), "%v", err)
			require.Contains(t, fault.Message(err), tc.want)
		})
	}
}

func TestCreateFieldNames(t *testing.T) {
	e := newEnv(t, ServerConfig{})
	for _, tc := range []struct{ name, body, want string }{
		{"capitalised_question_is_400", `{"Question":"x"}`, `unknown field "Question" in the request body: did you mean "question"?`},
		{"option_fields_are_checked_despite_custom_unmarshal", `{"question":"x","options":[{"Label":"A","value":"a"}]}`, `unknown field "Label" in options[0]: did you mean "label"?`},
		{"unknown_option_field_is_400", `{"question":"x","options":[{"label":"A","value":"a","color":"red"}]}`, `unknown field "color" in options[0]`},
		{"context_fields_are_checked", `{"question":"x","context":{"issueID":"I-1"}}`, `did you mean "issueId"?`},
		{"response_fields_are_checked", `{"question":"x","type":"non_blocking","defaultResponse":{"Value":"a"}}`, `did you mean "value"?`},
		{"infinite_timeout_is_400_naming_it", `{"question":"x","timeoutMinutes":1e999}`, `timeoutMinutes: 1e999 is out of range`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.call(t, "POST", "/api/jobs/job-1/questions", tc.body)
			requireError(t, r, 400, fault.EINVALID)
			require.Contains(t, r.body["message"], tc.want)
		})
	}
	t.Run("metadata_takes_any_keys", func(t *testing.T) {
		r := e.call(t, "POST", "/api/jobs/job-1/questions", `{"question":"x","metadata":{"Build URL":"u","PR":{"Number":7}}}`)
		require.Equal(t, http.StatusCreated, r.status, r.raw)
	})
	t.Run("answer_with_capitalised_response_is_400", func(t *testing.T) {
		q := e.ask(t, "job-1", textQ)
		r := e.call(t, "POST", "/api/questions/"+q.ID+"/answer", `{"Response":{"value":"x"}}`)
		requireError(t, r, 400, fault.EINVALID)
		require.Contains(t, r.body["message"], `did you mean "response"?`)
	})
}

// FuzzDecodeBody checks that decodeBody never panics, refuses only with
// invalid or too_large, and that what it accepts encoding/json's strict
// decoder accepts the same way and survives a round trip.
func FuzzDecodeBody(f *testing.F) {
	for _, s := range []string{
		askBody, `{"Question":"x"}`, `{"question":"x","options":[{"id":1,"value":true}]}`,
		`{"question":"x","timeoutMinutes":1e999}`, `{"question":"x","metadata":{"A":{"b":[1e308]}}}`,
		`{"question":"x","context":{"agent":"a"},"defaultResponse":{"value":[1,"a"]}}`, `[]`, `null`, `{} {}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var n hitl.NewQuestion
		err := decode(body, &n)
		if err != nil {
			if code := fault.Code(err); code != fault.EINVALID && code != fault.ETOOLARGE {
				t.Fatalf("%q: %v", body, err)
			}
			return
		}
		var std hitl.NewQuestion
		dec := json.NewDecoder(strings.NewReader(body))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&std), body)
		require.True(t, reflect.DeepEqual(n, std), "%q: %+v != %+v", body, n, std)
		again, err := json.Marshal(n)
		require.NoError(t, err)
		var back hitl.NewQuestion
		require.NoError(t, decode(string(again), &back), string(again))
	})
}
