package agent_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/agent"
)

// The README's SDK example, compiled with the tests (it is not run: it
// needs a running service).
func ExampleClient_Ask() {
	ctx := context.Background()
	c := agent.NewClient("http://127.0.0.1:7070", os.Getenv("HITL_TOKEN"))
	q, err := c.Ask(ctx, "run-42", hitl.NewQuestion{Question: "Which database?",
		Options: []hitl.Option{{Label: "prod"}, {Label: "staging"}}})
	switch hitl.ErrorCode(err) {
	case "": // q.Response.Value is the answer
		fmt.Println(q.Response.Value)
	case hitl.ETIMEDOUT: // nobody answered and there was no default
	case hitl.ECANCELLED: // the question was cancelled
	}
	d, err := c.RequestApproval(ctx, "run-42", "Delete 3 duplicate files", agent.ApprovalOptions{})
	if err == nil && d.Outcome == agent.Approved {
		fmt.Println("approved:", d.Message)
	}
}
