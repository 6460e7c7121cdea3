package service

import "github.com/hitlbot/hitl"

var _ hitl.EventLog = (*Log)(nil)
