package checks

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/checks/mcpschema"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// wireScript builds a probe.Result frame by frame the way the real session and transports
// record one: Seqs in order, Conn set, stdio lines as In message frames, HTTP POSTs as
// numbered exchanges whose answers carry the HTTP head.
type wireScript struct {
	res      *probe.Result
	exchange map[int]int // conn -> number of its latest exchange
	clock    time.Duration
}

func newWireScript(transport string) *wireScript {
	return &wireScript{
		res: &probe.Result{
			Target: "fixture", Transport: transport, Requested: protocol.LatestSessionRevision,
			InitializedAt: -1,
		},
		exchange: map[int]int{},
	}
}

func (w *wireScript) http() bool { return w.res.Transport == protocol.TransportHTTP }

// add appends a frame, setting its Seq and a time that grows by a millisecond per frame.
func (w *wireScript) add(f probe.Frame) int {
	w.clock += time.Millisecond
	f.Seq = len(w.res.Frames)
	f.At = w.clock
	w.res.Frames = append(w.res.Frames, f)
	return f.Seq
}

// out records a message the probe sends; on HTTP it opens a new POST exchange.
func (w *wireScript) out(conn int, raw string) int {
	f := probe.Frame{Conn: conn, Dir: probe.Out, Kind: probe.KindMessage, Raw: []byte(raw)}
	if w.http() {
		w.exchange[conn]++
		f.Exchange = w.exchange[conn]
		f.HTTP = &probe.HTTPInfo{Method: "POST", URL: "http://127.0.0.1:1/mcp"}
	}
	return w.add(f)
}

// in records a message the server sends: a stdout line, or on HTTP a 200 application/json
// body answering the connection's latest exchange.
func (w *wireScript) in(conn int, raw string) int {
	f := probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindMessage, Raw: []byte(raw)}
	if w.http() {
		f.Exchange = w.exchange[conn]
		f.HTTP = &probe.HTTPInfo{Status: 200, ContentType: "application/json"}
	}
	return w.add(f)
}

// inBody records a whole (non-stream) HTTP response as the transport does: a 200 JSON body
// as one message; anything else as the head with its body, and an error status's JSON body
// once more as a message. It returns the Seq of the message frame (-1 when there is none).
func (w *wireScript) inBody(conn, status int, contentType, raw string) int {
	info := &probe.HTTPInfo{Status: status, ContentType: contentType}
	isJSON := mediaType(contentType) == "application/json"
	if status == 200 && isJSON && raw != "" {
		return w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindMessage, Raw: []byte(raw),
			Exchange: w.exchange[conn], HTTP: info})
	}
	w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindHTTPResponse, Raw: []byte(raw),
		Exchange: w.exchange[conn], HTTP: info})
	if status >= 400 && isJSON && raw != "" {
		return w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindMessage, Raw: []byte(raw),
			Exchange: w.exchange[conn], HTTP: info})
	}
	return -1
}

// exchangeHead is the Seq of the first response frame of the connection's latest exchange.
func (w *wireScript) exchangeHead(conn int) int {
	for _, f := range w.res.Frames {
		if f.Conn == conn && f.Dir == probe.In && f.Exchange == w.exchange[conn] && f.HTTP != nil {
			return f.Seq
		}
	}
	return -1
}

// head records a response head whose body is no message (202, an error page).
func (w *wireScript) head(conn, status int, contentType, body string) int {
	return w.add(probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindHTTPResponse, Raw: []byte(body),
		Exchange: w.exchange[conn], HTTP: &probe.HTTPInfo{Status: status, ContentType: contentType}})
}

// sse records one event of the latest exchange's stream: a message, or with raw "" a
// priming event.
func (w *wireScript) sse(conn int, raw, malformed string) int {
	f := probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindMessage, Raw: []byte(raw),
		Exchange: w.exchange[conn], SSE: &probe.SSEInfo{Event: "message", Malformed: malformed},
		HTTP: &probe.HTTPInfo{Status: 200, ContentType: "text/event-stream"}}
	if raw == "" {
		f.Kind, f.SSE.ID = probe.KindSSEEvent, "prime-1"
	}
	return w.add(f)
}

func (w *wireScript) note(conn int, code probe.NoteCode, detail string) int {
	f := probe.Frame{Conn: conn, Dir: probe.In, Kind: probe.KindNote, Note: code, Detail: detail}
	if w.http() {
		f.Exchange = w.exchange[conn]
		if code == probe.NoteStreamEnded {
			f.HTTP = &probe.HTTPInfo{Status: 200, ContentType: "text/event-stream"}
		}
	}
	return w.add(f)
}

// reply is how the server answers one request: it records the answering frames and returns
// the Seq of the frame that answers (-1 for none), as the router would hand it over.
type reply func(w *wireScript, conn int, id string) int

// jsonReply answers with one message, a stdout line or a 200 JSON body.
func jsonReply(raw string) reply {
	return func(w *wireScript, conn int, id string) int {
		return w.in(conn, strings.ReplaceAll(raw, "ID", id))
	}
}

func resultReply(result string) reply {
	return jsonReply(`{"jsonrpc":"2.0","id":ID,"result":` + result + `}`)
}

func errorReply(code int, message string) reply {
	return jsonReply(fmt.Sprintf(`{"jsonrpc":"2.0","id":ID,"error":{"code":%d,"message":%q}}`, code, message))
}

// noReply records the probe's timeout.
func noReply() reply {
	return func(w *wireScript, conn int, id string) int {
		w.note(conn, probe.NoteTimeout, "no answer to the request (id "+id+") within 10s")
		return -1
	}
}

// sseReply answers with an event stream: a priming event, then the message, then the end.
func sseReply(raw string) reply {
	return func(w *wireScript, conn int, id string) int {
		w.head(conn, 200, "text/event-stream", "")
		w.sse(conn, "", "")
		seq := w.sse(conn, strings.ReplaceAll(raw, "ID", id), "")
		w.note(conn, probe.NoteStreamEnded, "")
		return seq
	}
}

// call records a request and its answer and returns the Step the session would build.
func (w *wireScript) call(conn int, name, method, id string, params string, answer reply) probe.Step {
	msg := `{"jsonrpc":"2.0","id":` + id + `,"method":` + strconv.Quote(method)
	if params != "" {
		msg += `,"params":` + params
	}
	st := probe.Step{Name: name, Method: method, Conn: conn, ID: id, Request: w.out(conn, msg+"}"), Response: -1}
	resp := answer(w, conn, id)
	w.settle(&st, resp)
	w.res.Steps = append(w.res.Steps, st)
	return st
}

// settle fills a step's outcome from its answering frame as session.callWithID does.
func (w *wireScript) settle(st *probe.Step, resp int) {
	head := -1
	for _, f := range w.res.Frames[st.Request:] {
		if f.Dir == probe.In && f.Conn == st.Conn && f.HTTP != nil && f.Exchange == w.res.Frames[st.Request].Exchange {
			head = f.Seq
			break
		}
	}
	if head >= 0 {
		st.HTTPStatus = w.res.Frames[head].HTTP.Status
	}
	// The router gives a request up at a response head that carries no message (an error
	// status, a body of another type), before any message recorded after it.
	if head >= 0 && w.res.Frames[head].Kind == probe.KindHTTPResponse && !strings.HasPrefix(w.res.Frames[head].HTTP.ContentType, "text/event-stream") {
		st.Response, st.Err = head, probe.ErrUnanswered.Error()
		st.Outcome = probe.OutcomeTransport
		if st.HTTPStatus >= 200 && st.HTTPStatus <= 299 {
			st.Outcome = probe.OutcomeNoAnswer
		}
		return
	}
	if resp < 0 && head >= 0 {
		// An event stream that ended unanswered: the router hands over its end note.
		for _, f := range w.res.Frames[st.Request:] {
			if f.Conn != st.Conn || f.Exchange != w.res.Frames[st.Request].Exchange || f.Kind != probe.KindNote {
				continue
			}
			if f.Note == probe.NoteTimeout {
				break
			}
			if f.Note == probe.NoteStreamEnded || f.Note == probe.NoteStreamNoAnswer {
				st.Response, st.Outcome, st.Err = f.Seq, probe.OutcomeNoAnswer, probe.ErrUnanswered.Error()
				return
			}
		}
	}
	if resp < 0 {
		st.Outcome = probe.OutcomeNoAnswer
		if head >= 0 && w.res.Frames[head].Kind == probe.KindHTTPResponse && !strings.HasPrefix(w.res.Frames[head].HTTP.ContentType, "text/event-stream") {
			st.Outcome, st.Response, st.Err = probe.OutcomeTransport, head, probe.ErrUnanswered.Error()
		}
		for _, f := range w.res.Frames[st.Request:] {
			if f.Conn == st.Conn && f.Kind == probe.KindNote && (f.Note == probe.NoteProcessExit || f.Note == probe.NoteStdoutClosed) {
				st.Outcome, st.Err = probe.OutcomeTransport, probe.ErrClosed.Error()
			}
		}
		return
	}
	st.Response = resp
	st.Latency = w.res.Frames[resp].At - w.res.Frames[st.Request].At
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	_ = json.Unmarshal(w.res.Frames[resp].Raw, &m)
	if m.Error != nil && string(m.Error) != "null" {
		st.Outcome = probe.OutcomeError
		var e struct {
			Code json.RawMessage `json:"code"`
		}
		if json.Unmarshal(m.Error, &e) == nil && e.Code != nil {
			st.ErrorCodeRaw = e.Code
			if c, err := strconv.ParseInt(string(e.Code), 10, 64); err == nil {
				st.ErrorCode = &c
			}
		}
		return
	}
	st.Outcome, st.Result = probe.OutcomeOK, m.Result
}

// notify records a notification of the probe; on HTTP answer records the server's answer
// (by default 202 with no body).
func (w *wireScript) notify(conn int, name, method string, answer func(w *wireScript, conn int) int) probe.Step {
	st := probe.Step{Name: name, Method: method, Conn: conn, Response: -1, Outcome: probe.OutcomeSent,
		Request: w.out(conn, `{"jsonrpc":"2.0","method":`+strconv.Quote(method)+`}`)}
	if w.http() {
		if answer == nil {
			answer = func(w *wireScript, conn int) int { return w.head(conn, 202, "", "") }
		}
		head := answer(w, conn)
		st.Response, st.HTTPStatus, st.Outcome = head, w.res.Frames[head].HTTP.Status, probe.OutcomeOK
		if st.HTTPStatus < 200 || st.HTTPStatus > 299 {
			st.Outcome = probe.OutcomeTransport
		}
	}
	w.res.Steps = append(w.res.Steps, st)
	return st
}

// sessionPlan is a conformant server's session, to be bent one way per test row.
type sessionPlan struct {
	transport  string
	initResult string
	initialize reply // overrides the answer built from initResult
	bogus      reply // the answer to the 1900-01-01 initialize (nil: not sent)
	// onNegotiation adds frames on the negotiation connection after its initialize.
	onNegotiation func(w *wireScript)
	answers       map[string]reply // by step name, overriding the defaults
	notifyAnswer  map[string]func(w *wireScript, conn int) int
	// beforeInitialized and afterNotifications add server frames at those points.
	beforeInitialized  func(w *wireScript)
	afterNotifications func(w *wireScript)
	// atEnd adds main-connection exchanges after the unknown method (next hands out ids).
	atEnd     func(w *wireScript, next func() string)
	processes []probe.ProcessInfo
	// stopAfterInitialize ends the session as the probe does when initialize fails.
	stopAfterInitialize bool
	toolsResult         string
}

const plainInitResult = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"fixture","version":"1.0.0"}}`

func defaultPlan(transport string) *sessionPlan {
	p := &sessionPlan{
		transport:    transport,
		initResult:   plainInitResult,
		answers:      map[string]reply{},
		notifyAnswer: map[string]func(*wireScript, int) int{},
		toolsResult:  `{"tools":[{"name":"echo","description":"echoes","inputSchema":{"type":"object"}}]}`,
	}
	p.bogus = resultReply(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"fixture","version":"1.0.0"}}`)
	if transport == protocol.TransportStdio {
		p.processes = []probe.ProcessInfo{
			{Conn: probe.ConnMain, PID: 4242, Started: true, Exited: true, EndedBy: "stdin-eof", ShutdownAfter: 15 * time.Millisecond},
			{Conn: probe.ConnNegotiation, PID: 4243, Started: true, Exited: true, EndedBy: "stdin-eof", ShutdownAfter: 12 * time.Millisecond},
		}
	}
	return p
}

// scriptedSession runs a plan the way probe.Run would: the negotiation connection's
// initialize, then the main session.
func scriptedSession(transport string, edits ...func(p *sessionPlan)) *probe.Result {
	p := defaultPlan(transport)
	for _, e := range edits {
		e(p)
	}
	w := newWireScript(transport)
	answer := func(name string, fallback reply) reply {
		if a, ok := p.answers[name]; ok {
			return a
		}
		return fallback
	}
	initParams := func(v string) string {
		return `{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"mcpwatch","version":"dev"}}`
	}
	if p.bogus != nil {
		w.call(probe.ConnNegotiation, probe.StepInitializeBogus, "initialize", "1", initParams(protocol.BogusRevision), p.bogus)
	}
	if p.onNegotiation != nil {
		p.onNegotiation(w)
	}

	initAnswer := p.initialize
	if initAnswer == nil {
		initAnswer = resultReply(p.initResult)
	}
	init := w.call(probe.ConnMain, probe.StepInitialize, "initialize", "1", initParams(protocol.LatestSessionRevision), initAnswer)
	w.res.Processes = p.processes
	if init.Outcome != probe.OutcomeOK || p.stopAfterInitialize {
		w.res.Err = "initialize failed"
		w.shutdown()
		return w.res
	}
	w.res.Initialize = init.Result
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(init.Result, &ir)
	w.res.Negotiated, w.res.ProtocolVersion = ir.ProtocolVersion, w.res.Requested
	if protocol.KnownRevision(ir.ProtocolVersion) {
		w.res.ProtocolVersion = ir.ProtocolVersion
	}
	if p.beforeInitialized != nil {
		p.beforeInitialized(w)
	}
	w.res.InitializedAt = w.notify(probe.ConnMain, probe.StepInitialized, "notifications/initialized", p.notifyAnswer[probe.StepInitialized]).Request
	w.notify(probe.ConnMain, probe.StepUnknownNotification, probe.UnknownNotificationMethod, p.notifyAnswer[probe.StepUnknownNotification])
	if p.afterNotifications != nil {
		p.afterNotifications(w)
	}
	id := 1
	next := func() string { id++; return strconv.Itoa(id) }
	w.call(probe.ConnMain, probe.StepToolsList, "tools/list", next(), "", answer(probe.StepToolsList, resultReply(p.toolsResult)))
	w.call(probe.ConnMain, probe.StepResourcesList, "resources/list", next(), "", answer(probe.StepResourcesList, errorReply(-32601, "Method not found")))
	w.call(probe.ConnMain, probe.StepTemplatesList, "resources/templates/list", next(), "", answer(probe.StepTemplatesList, errorReply(-32601, "Method not found")))
	w.call(probe.ConnMain, probe.StepPromptsList, "prompts/list", next(), "", answer(probe.StepPromptsList, errorReply(-32601, "Method not found")))
	w.call(probe.ConnMain, probe.StepPing, "ping", `"mcpwatch-ping"`, "", answer(probe.StepPing, resultReply(`{}`)))
	w.call(probe.ConnMain, probe.StepUnknownMethod, probe.UnknownMethod, next(), `{}`, answer(probe.StepUnknownMethod, errorReply(-32601, "Method not found")))
	if p.atEnd != nil {
		p.atEnd(w, next)
	}
	w.shutdown()
	return w.res
}

// shutdown records the end of every stdio process that has none recorded yet, as the
// transport's exit watcher does once the probe closes stdin.
func (w *wireScript) shutdown() {
	for _, p := range w.res.Processes {
		if !p.Exited || exitNote(&Capture{Result: w.res}, p.Conn) >= 0 {
			continue
		}
		w.note(p.Conn, probe.NoteStdoutClosed, "")
		w.note(p.Conn, probe.NoteProcessExit, fmt.Sprintf("exit status %d", p.ExitCode))
	}
}

// checkByID finds one check of this package's areas. Compiling the message schemas costs
// tens of milliseconds, so only the check that uses them gets them.
func checkByID(t *testing.T, id string) Check {
	t.Helper()
	reg, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	c, ok := reg.Lookup(id)
	if !ok {
		t.Fatalf("no check %q", id)
	}
	return c
}

func mustSchemas(t testing.TB) *mcpschema.Validator {
	t.Helper()
	schemas, err := mcpschema.New()
	if err != nil {
		t.Fatal(err)
	}
	return schemas
}

// evaluateCheck runs one check on a result.
func evaluateCheck(t *testing.T, id string, res *probe.Result) Finding {
	t.Helper()
	return evaluateOne(checkByID(t, id), NewCapture(res))
}

// checkRow is one table row of a check's test.
type checkRow struct {
	name string
	res  *probe.Result
	want Status
	// msg must appear in the finding's message (what was expected and what came back).
	msg string
	// noFrames: the fault has no transcript frame to point at (a command that cannot start).
	noFrames bool
}

// runCheckRows evaluates a check on every row and holds each finding to the catalogue's
// rules: the status, the message naming the fault, and evidence frames that exist.
func runCheckRows(t *testing.T, id string, rows []checkRow) {
	t.Helper()
	c := checkByID(t, id)
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			f := evaluateOne(c, NewCapture(row.res))
			if f.Status != row.want {
				t.Fatalf("status %s, want %s (message %q, evidence %+v)", f.Status, row.want, f.Message, f.Evidence)
			}
			if !strings.Contains(f.Message, row.msg) {
				t.Errorf("message %q does not contain %q", f.Message, row.msg)
			}
			switch f.Status {
			case StatusFail, StatusWarn:
				if len(f.Evidence) == 0 {
					t.Fatalf("a %s finding without evidence", f.Status)
				}
				for _, e := range f.Evidence {
					if len(e.Frames) == 0 && !row.noFrames {
						t.Errorf("evidence %q names no frame", e.Message)
					}
					for _, s := range e.Frames {
						if s < 0 || s >= len(row.res.Frames) {
							t.Errorf("evidence %q names frame %d of %d", e.Message, s, len(row.res.Frames))
						}
					}
				}
				if want := SeverityError; f.Status == StatusFail && f.Severity != want {
					t.Errorf("severity %q, want %q", f.Severity, want)
				}
			case StatusPass, StatusSkip:
				if len(f.Evidence) != 0 {
					t.Errorf("a %s finding with evidence %+v", f.Status, f.Evidence)
				}
			}
		})
	}
}

// tools13 is a tools/list result of 13 realistic tools.
func tools13(t testing.TB) string {
	b, err := os.ReadFile("testdata/tools13.json")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
