// Package probe talks to one MCP server the way a client would, bends a few requests on
// purpose, and records every byte of it. It judges nothing: server misbehaviour is evidence
// in the Result, never an error, and the checks package judges that Result afterwards.
//
// The whole API is one call:
//
//	res, err := probe.Run(ctx, probe.Target{URL: "http://127.0.0.1:8931/mcp"}, probe.Options{})
//	// err: only an invalid Target or Options.
//	// res.Steps: what was asked and how it went; res.Frames: the transcript they point into.
//
// A Target is a stdio command or an HTTP URL; Options bound the probe (Limits, timeouts)
// and choose the revision to offer (RevisionAuto detects the era). RunRevisions probes once
// per revision. WriteRecording and ReadRecording keep a Result as a file, so that checks can
// be judged again without the server. The names of revisions, transports, headers and error
// codes are those of package protocol; the server processes of stdio targets are started and
// ended by package process.
//
// # Connections
//
// A probe opens several connections to the server at once (over stdio each is a server
// process of its own, over HTTP a session or a run of exchanges of its own), in three
// families. Every frame carries the number of the connection it travelled on:
//
//	                               ┌──────────────────────────────────────────┐
//	Run ──┬─ main (ConnMain = 1) ─▶│ era detection: server/discover, or       │
//	      │                        │ initialize ─ notifications/initialized ─ │
//	      │                        │ lists (paged) ─ ping ─ unknown method ─  │
//	      │                        │ unknown tool ─ bogus cursor ─            │
//	      │                        │ prompts/get ─ completion ─ setLevel      │
//	      │                        └───────┬───────────────┬──────────────────┘
//	      │                  era (eraShare)│               │handshake (handoff)
//	      │                                ▼               ▼
//	      ├─ negotiation (ConnNegotiation = 2): initialize offering a bogus revision;
//	      │    then, when the server goes on, the declared lists are read again
//	      │    (lists.stable) and the robustness probes ride it.
//	      │    Against a stateless server: the version and _meta probes instead.
//	      │
//	      └─ rule probes, one short-lived connection per rule (ruleProbes):
//	           ConnSession 3 (http.delete-session too), ConnProtocolHeader 4
//	           (http.get-stream and, in the session era, http.concurrent-requests too),
//	           ConnOrigin 6, ConnRobustness 8, ConnAuth 12 (not opened when the target
//	           carries no credentials and the main handshake got no 401: that handshake is
//	           its request without credentials), ConnStatelessHeaders 30, ConnBatch 31, ConnServerCard 46,
//	           ConnStatelessRemoved 32, ConnStatelessSession 33, ConnStatelessGetDelete 34,
//	           ConnSubscriptions 50 (a subscriptions/listen stream, opened and ended),
//	           ConnConcurrent 55 (stateless servers), ConnTLSVersion 57 (a TLS handshake only),
//	           and the era probe, ConnSessionEra 40: initialize on a connection nothing
//	           stateless ever reaches, started only when someone needs its answer.
//
// The main connection is the session a client would run; its evidence must not carry the
// marks of a bent request, so every rule that needs one (a deleted session, a foreign
// Origin, malformed JSON that may end a stdio server) gets a connection of its own. The
// negotiation connection starts beside the main one, so a slow-starting stdio server costs
// its start-up once. The other connections wait for what the main connection finds: its
// era and its handshake, each published once (handoff) and read by all.
//
// # Words
//
//   - era: session (a revision with initialize, 2024-11-05 to 2025-11-25) or stateless
//     (2026-07-28: server/discover first, _meta on every request). With RevisionAuto the
//     main connection detects it (era.go); a server may speak both, which the era probe
//     (era_probe.go) tells without changing the era of a connection the checks judge.
//   - handshake: the main connection's first exchange, initialize (initialize.go, shared by
//     every connection) or server/discover (era.go), the Step published to the others
//     (handoff.go). Over HTTP a handshake that got no HTTP answer at all leaves the rule
//     connections out; the robustness probes get a connection of their own only after a
//     successful one; the batch probe runs only when it settled on 2025-03-26.
//   - rule probe: the probe of one rule on its own connection; ruleProbes (rules.go) lists
//     them with the transports, eras and revisions they apply to, ruleConn (rules_conn.go)
//     is their connection, and rules_<area>.go hold the probes of an area.
//   - transcript: the ordered Frames of every connection of one probe (Transcript,
//     transcript.go), shared by all of them; the one record the checks read.
//   - frame: one entry of the transcript (Frame, transcript.go, numbered by Seq): a message
//     sent or received byte for byte, an HTTP request or response head, an SSE event without
//     a message, or a note of what the transport observed (a process exit, a timeout, a limit
//     reached). A stdio server's stderr is not a frame: its tail is in ProcessInfo.
//   - step: one request or notification and its fate (Step, result.go): name (the Step*
//     constants), connection, the Seqs of its request and answer, outcome, error code,
//     latency. Checks find their evidence by step name and connection.
//
// # Where things are
//
// The connections: run.go (Run: opens them all and gathers the Result), session.go (the
// main connection), negotiation.go (the negotiation connection), stateless_session.go (the
// main connection under a stateless revision), tool_probes.go and prompt_reads.go (the tool
// probes and the prompt, completion and logging reads that end the main connection), rules*.go (the rule probes; rules_robust.go the robustness probes,
// which ride the negotiation connection when they can), era.go and era_probe.go (era
// detection and the era probe), run_revisions.go (one probe per revision).
//
// The exchange of messages: call.go (a request and its answer), initialize.go, router.go (a
// connection's Wire: answers matched to requests), stateless_meta.go and stateless_http.go
// (what a stateless request carries), envelope.go and listpage.go (reading answers).
//
// The evidence: transcript.go, result.go, recording.go.
//
// The transports: transport.go (Transport and Wire), target.go and options.go (what to
// probe and how), stdio*.go (over a child's pipes), http*.go (Streamable HTTP),
// sse_legacy*.go and sse_detect.go (legacy HTTP+SSE and telling it apart), sse_parser.go
// (event streams of both), www_authenticate.go (auth challenges).
package probe
