package mcp

import (
	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools' inputs. Their schemas are inferred from the types; the
// jsonschema tags are the descriptions a model reads, and enums are added
// in addTools.

type askInput struct {
	Prompt         string   `json:"prompt" jsonschema:"The question, self-contained: the person sees only this (and who asks). Say what you will do with each answer."`
	InputType      string   `json:"input_type,omitempty" jsonschema:"text (default): a free answer; password: a secret, never shown or logged; confirmation: a yes/no question, answered yes or no."`
	Sensitive      bool     `json:"sensitive,omitempty" jsonschema:"The answer is secret (a key, a password): it is never shown in Slack, logged or kept after it reaches you."`
	Options        []string `json:"options,omitempty" jsonschema:"Choices the person picks one of; the answer is the chosen text. Prefer 2 to 5 short options."`
	Type           string   `json:"type,omitempty" jsonschema:"blocking (default): wait for the answer; non_blocking: go on at once with default (required) and let the answer arrive later; error_recovery: you are stuck on an error."`
	TimeoutMinutes float64  `json:"timeout_minutes,omitempty" jsonschema:"How long the question stays open (default by type: 30, error_recovery 10)."`
	Default        string   `json:"default,omitempty" jsonschema:"The answer to use when nobody answers in time (and at once for non_blocking)."`
}

type answerInput struct {
	QuestionID  string  `json:"question_id" jsonschema:"The question id a tool returned with status pending (q_…)."`
	WaitSeconds float64 `json:"wait_seconds,omitempty" jsonschema:"How long to wait for the answer if the question is still open (default 0: answer at once with its status; at most 600)."`
}

type approvalInput struct {
	Operation string `json:"operation" jsonschema:"What you want to do, as one line a person can approve: Delete build/ (412 files)."`
	Context   string `json:"context,omitempty" jsonschema:"Why, and what happens if it is denied."`
	Risk      string `json:"risk,omitempty" jsonschema:"How much it can hurt: low, medium, high or critical."`
	Resource  string `json:"resource,omitempty" jsonschema:"What it acts on, exactly as you will use it: the command, the path, the URL. The approver may edit it; then use the edited value."`
	OpType    string `json:"op_type,omitempty" jsonschema:"file_delete, file_write, file_read, shell, api_call, spawn_agent, or a lowercase name of your own (default custom). The approval policy decides by it."`
}

type permissionInput struct {
	ToolName  string         `json:"tool_name" jsonschema:"The tool Claude Code wants to use."`
	Input     map[string]any `json:"input" jsonschema:"The tool's input."`
	ToolUseID string         `json:"tool_use_id,omitempty" jsonschema:"The tool use id."`
}

// Reply is what ask_human and get_answer return.
type Reply struct {
	Status     string `json:"status" jsonschema:"answered, defaulted (nobody answered; the default applies), timed_out, cancelled or pending (call get_answer later)"`
	Answer     string `json:"answer,omitempty" jsonschema:"The answer (for confirmation: yes or no)."`
	Note       string `json:"note,omitempty" jsonschema:"A comment the person gave with the answer, or why there is none."`
	QuestionID string `json:"question_id,omitempty"`
	AnsweredBy string `json:"answered_by,omitempty"`
}

// ApprovalReply is what request_approval returns.
type ApprovalReply struct {
	Decision   string `json:"decision" jsonschema:"approved, denied, timed_out, cancelled or pending (call request_approval again with the same arguments, or get_answer, later)"`
	Edited     string `json:"edited,omitempty" jsonschema:"The resource as the approver edited it: use it instead of yours."`
	Message    string `json:"message,omitempty" jsonschema:"The approver's message, or the reason for a denial."`
	By         string `json:"by,omitempty"`
	Rule       string `json:"rule,omitempty" jsonschema:"The policy rule that decided or asked."`
	QuestionID string `json:"question_id,omitempty"`
}

const (
	askDescription = "Ask a person a question and wait for the answer (in Slack or a terminal). " +
		"Use it when their answer changes what you do and you cannot find it out yourself. " +
		"Use input_type confirmation for yes/no, options for a choice, sensitive or password for secrets. " +
		"If it returns status pending, the question is still open: call get_answer with its question_id later " +
		"(or call ask_human again with exactly the same arguments: no second message is sent).\n\n"
	getAnswerDescription = "Get the answer to a question a hitl tool left pending (status pending with a question_id). " +
		"It answers at once: the answer, or status pending while the question is still open. " +
		"Give wait_seconds to wait that long for an answer first."
	approvalDescription = "Request a person's approval before a risky operation (deleting files, running shell commands, " +
		"calling external services, spending money). hitl's approval policy decides: it may allow or deny at once, or ask " +
		"a person and wait. Proceed only on decision approved, with edited in place of your resource when it is set. " +
		"On pending, call again with exactly the same arguments to keep waiting (no second request is sent)."
	permissionDescription = "Claude Code's permission prompt (claude --permission-prompt-tool mcp__hitl__permission_prompt): " +
		"decides a tool use by hitl's approval policy, asking a person when it says so. Not for direct use."
)

// addTools registers the tools.
func (s *Server) addTools() {
	askSchema := schema[askInput](map[string][]any{
		"input_type": {"text", "password", "confirmation"},
		"type":       {"blocking", "non_blocking", "error_recovery"},
	})
	sdk.AddTool(s.srv, &sdk.Tool{Name: "ask_human", Title: "Ask a person", Description: askDescription + s.opts.Instruction,
		InputSchema: askSchema}, s.askHuman)
	sdk.AddTool(s.srv, &sdk.Tool{Name: "get_answer", Title: "Get a pending answer", Description: getAnswerDescription,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, s.getAnswer)
	sdk.AddTool(s.srv, &sdk.Tool{Name: "request_approval", Title: "Request approval", Description: approvalDescription,
		InputSchema: schema[approvalInput](map[string][]any{"risk": {"low", "medium", "high", "critical"}})}, s.requestApproval)
	sdk.AddTool(s.srv, &sdk.Tool{Name: "permission_prompt", Title: "Claude Code permission prompt", Description: permissionDescription},
		s.permissionPrompt)
}

// schema is T's inferred input schema with the given enums.
func schema[T any](enums map[string][]any) *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err) // the types above are fixed: a test catches this
	}
	for name, vals := range enums {
		sc.Properties[name].Enum = vals
	}
	return sc
}
