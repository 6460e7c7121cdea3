package client_test

import (
	"github.com/hitlbot/hitl/client"
	"github.com/hitlbot/hitl/observe"
)

// The SDK implements the application's stats interface, checked here
// because the SDK itself does not import the application.
var _ observe.StatsService = (*client.Client)(nil)
