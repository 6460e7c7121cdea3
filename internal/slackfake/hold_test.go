package slackfake

import (
	"context"
	"testing"
	"time"
)

func TestHold(t *testing.T) {
	srv := New(t, WithUserGroup("S0OPS", "U0ALICE"))
	api := newAPI(srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hold := srv.Hold("usergroups.users.list")
	done := make(chan error, 1)
	go func() {
		_, err := api.GetUserGroupMembersContext(ctx, "S0OPS")
		done <- err
	}()

	t.Run("a held call waits while other methods answer", func(t *testing.T) {
		if err := hold.Arrived(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if err := post(api, "C1"); err != nil {
			t.Fatalf("another method was held too: %v", err)
		}
		select {
		case err := <-done:
			t.Fatalf("the held call returned before the release: %v", err)
		default:
		}
		if n := len(srv.Calls("usergroups.users.list")); n != 0 {
			t.Fatalf("a held call is recorded when answered, got %d", n)
		}
	})
	t.Run("released, the call is answered", func(t *testing.T) {
		hold.Release()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if _, err := api.GetUserGroupMembersContext(ctx, "S0OPS"); err != nil {
			t.Fatalf("later calls are not held: %v", err)
		}
	})
}
