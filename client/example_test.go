package client_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/fault"
)

// The README's SDK example, compiled with the tests (it is not run: it
// needs a running service).
func ExampleClient_Ask() {
	ctx := context.Background()
	c := client.NewClient("http://127.0.0.1:7070", os.Getenv("HITL_TOKEN"))
	q, err := c.Ask(ctx, "run-42", hitl.NewQuestion{Question: "Which database?",
		Options: []hitl.Option{{Label: "prod"}, {Label: "staging"}}})
	switch fault.Code(err) {
	case "": // q.Response.Value is the answer
		fmt.Println(q.Response.Value)
	case fault.ETIMEDOUT: // nobody answered and there was no default
	case fault.ECANCELLED: // the question was cancelled
	}
	d, err := c.RequestApproval(ctx, "run-42", "Delete 3 duplicate files", client.ApprovalOptions{})
	if err == nil && d.Outcome == client.Approved {
		fmt.Println("approved:", d.Message)
	}
}

// A complete steerable loop (docs/protocol.md#steering): people can pause, resume, cancel,
// escalate or redirect it from Slack or a terminal. Compiled, not run.
func ExampleClient_Run() {
	ctx := context.Background()
	c := client.NewClient("http://127.0.0.1:7070", os.Getenv("HITL_TOKEN"))
	loop, err := c.Run(ctx, "loop-1703123456-12345", client.RunOptions{IssueID: "auth-123", Mode: "issue", Max: 10, Model: "haiku"})
	if err != nil {
		fmt.Println("cannot reach hitl:", err)
		return
	}
	instruction := "Fix the failing auth tests."
	for iter := 1; iter <= 10; iter++ {
		// Returns at once while running, blocks while paused, and fails
		// with fault.ECANCELLED once a person cancels the run.
		step, err := loop.Checkpoint(ctx, iter)
		if fault.Code(err) == fault.ECANCELLED {
			fmt.Println("stopped by a person:", fault.Message(err))
			return
		}
		if err != nil {
			_ = loop.Abort(ctx, err.Error())
			return
		}
		if step.Instruction != "" {
			instruction = step.Instruction // a redirect, handed over once
		}
		// loop.Context() is cancelled the moment the run is: a long model
		// call made with it stops at once.
		if done := callModel(loop.Context(), step.Model, instruction); done {
			_ = loop.Done(ctx)
			return
		}
	}
	_ = loop.Abort(ctx, "out of iterations")
}

// callModel stands for one iteration of real work.
func callModel(ctx context.Context, model, instruction string) bool {
	return ctx.Err() == nil && model != "" && instruction == ""
}
