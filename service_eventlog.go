package hitl

var _ EventLog = (*Service)(nil)
