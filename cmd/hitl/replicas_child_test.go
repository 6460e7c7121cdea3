package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl/config"
	"github.com/hitlbot/hitl/postgres"
	"github.com/hitlbot/hitl/slack"
	"github.com/stretchr/testify/require"
)

// replicaChildEnv makes TestReplicaChild run a replica; without it the
// child test skips.
const replicaChildEnv = "HITL_REPLICA_CHILD"

// replicaLease is how long a replica's claim on a Slack target holds in
// the kill tests: the longest a target waits for another replica to take
// it over after its holder died.
const replicaLease = 2 * time.Second

// replicaTuning is how every replica of the kill tests runs, in this
// process or in the child: no rate limits (the load asks in bursts),
// timeouts down to a second (so the sweepers time questions out under the
// load), and with Slack, fast pacing, a short claim lease and frequent
// looks for targets another replica stopped doing.
func replicaTuning(c *config.Config, m *Main) {
	c.RateLimits.TokenPerMinute, c.RateLimits.RunPerMinute, c.RateLimits.PolicyPerMinute, c.RateLimits.ControlPerMinute = 0, 0, 0, 0
	c.Timeouts.Min = config.Duration(time.Second)
	c.SweepSchedule = "@every 1s"
	m.SlackTuning = func(bc *slack.Config) {
		bc.PostInterval, bc.RetryMin, bc.RetryMax, bc.HomeRefresh = 5*time.Millisecond, 5*time.Millisecond, 50*time.Millisecond, 5*time.Millisecond
		bc.Redispatch = replicaLease / 8
		// The bot starts after the database is open: its claims take
		// the short lease from the first.
		m.DB.(*database).Database.(*postgres.DB).SetLease(replicaLease)
	}
}

// childReplica is `hitl serve` in a child process: this test binary
// running TestReplicaChild, killed with SIGKILL.
type childReplica struct {
	url        string
	cmd        *exec.Cmd
	log        *syncBuffer
	stderrDone chan struct{}
}

// startChildReplica starts a replica on the database at dbURL with the
// seal key file key; slackEnv adds Slack's settings (nil: no Slack).
func startChildReplica(t *testing.T, ctx context.Context, dbURL, key string, slackEnv ...string) *childReplica {
	t.Helper()
	env := append([]string{replicaChildEnv + "=1", "HITL_DB=" + dbURL, "HITL_SEAL_KEY_FILE=" + key,
		"HITL_CONFIG=", "HITL_TOKENS=", "SLACK_APP_TOKEN=", "SLACK_BOT_TOKEN="}, slackEnv...)
	return startChild(t, ctx, "TestReplicaChild", "the child replica", env)
}

// startChild runs this test binary's test named test as a child service
// with env added to this process's environment, and waits until it says
// it listens (what names it in a failure).
func startChild(t *testing.T, ctx context.Context, test, what string, env []string) *childReplica {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // a no-op once it was waited for
	c := &childReplica{cmd: cmd, log: &syncBuffer{}, stderrDone: make(chan struct{})}
	urlc := make(chan string, 1)
	go func() {
		defer close(c.stderrDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(c.log, line)
			if u, ok := strings.CutPrefix(line, listeningPrefix); ok {
				u, _, _ = strings.Cut(u, ", ") // hitl serve's line goes on
				select {
				case urlc <- u:
				default:
				}
			}
		}
	}()
	select {
	case c.url = <-urlc:
	case <-c.stderrDone:
		_ = cmd.Wait()
		t.Fatalf("%s ended without listening:\n%s", what, c.log.String())
	case <-ctx.Done():
		t.Fatalf("%s did not listen in time:\n%s", what, c.log.String())
	}
	return c
}

// kill ends the child with SIGKILL: no chance to clean up.
func (c *childReplica) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, c.cmd.Process.Kill())
	<-c.stderrDone // the pipe ends with the process; Wait comes after the reads
	err := c.cmd.Wait()
	var exitErr *exec.ExitError
	require.ErrorAs(t, err, &exitErr, "the child replica ended by itself:\n%s", c.log.String())
	require.Equal(t, "signal: killed", exitErr.Error(), "the child replica ended by itself:\n%s", c.log.String())
}

// childSlackEnv is the environment that points a child replica at srv.
func childSlackEnv(appToken, botToken, apiURL, channel string) []string {
	return []string{"SLACK_APP_TOKEN=" + appToken, "SLACK_BOT_TOKEN=" + botToken, "HITL_SLACK_API_URL=" + apiURL, "HITL_SLACK_CHANNEL=" + channel}
}

// TestReplicaChild is the replica the kill tests kill: the service on
// HITL_DB with HITL_SEAL_KEY_FILE (and Slack when SLACK_APP_TOKEN is
// set), tuned as the replicas in the parent, on 127.0.0.1:0.
func TestReplicaChild(t *testing.T) {
	if os.Getenv(replicaChildEnv) != "1" {
		t.Skip("run by the replica kill tests")
	}
	// The parent kills this process long before the deadline; the deadline
	// only keeps an orphan from serving forever.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := config.Default()
	cfg.Listen, cfg.DB, cfg.SealKeyFile = "127.0.0.1:0", os.Getenv("HITL_DB"), os.Getenv("HITL_SEAL_KEY_FILE")
	cfg.Slack.AppToken, cfg.Slack.BotToken = os.Getenv("SLACK_APP_TOKEN"), os.Getenv("SLACK_BOT_TOKEN")
	cfg.Slack.APIURL, cfg.Slack.Channel = os.Getenv("HITL_SLACK_API_URL"), os.Getenv("HITL_SLACK_CHANNEL")
	cfg.Slack.RunsChannel, cfg.Alerts.Channel = os.Getenv("HITL_SLACK_RUNS_CHANNEL"), os.Getenv("HITL_ALERTS_CHANNEL")
	m := NewMain(cfg, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	replicaTuning(&m.Config, m)
	require.NoError(t, m.Config.Validate())
	require.NoError(t, m.Run(ctx))
	fmt.Fprintln(os.Stderr, listeningPrefix+m.URL())
	<-ctx.Done()
	t.Fatal("the child replica was not killed within two minutes")
}
