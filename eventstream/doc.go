// Package eventstream owns the event stream: the event log as a person or
// an agent follows it, caught up from a cursor (the log's Seq, an SSE
// Last-Event-ID) and then delivered live, with no gap and no duplicate
// across the switch, filtered by what the stream's principal may see
// (the root's hitl.Event.VisibleTo) and by run when asked, with a
// heartbeat while idle. A stream that falls Backlog batches behind ends
// (ErrBehind), and its client resumes from its last id.
//
// A Broadcaster reads the log once per change for every open stream; a
// Stream is one reader's position in it. Edges (the API's SSE in agent,
// the web pages' stream in web, the terminal's lines in cmd/hitl) parse
// their request, Open a Stream and Serve it into a Sink that writes
// frames in their own wire format; nothing here knows a wire format.
// The package depends on the root's hitl.EventLog only.
package eventstream
