package monitor

import (
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
	"github.com/mcpwatch/mcpwatch/probe"
)

// maxAnswerSnippet bounds the start of a failing answer's body that an alert shows: enough
// for a proxy's error page title or a framework's error message.
const maxAnswerSnippet = 300

// answerBody is the body that came back for a step but was not its JSON-RPC answer (an HTTP
// error page, a body of the wrong type, a line that is not JSON), nil when none came.
func answerBody(res *probe.Result, st probe.Step) []byte {
	if st.Response < 0 || st.Response >= len(res.Frames) {
		return nil
	}
	f := res.Frames[st.Response]
	if f.Dir != probe.In || (f.Kind != probe.KindHTTPResponse && f.Kind != probe.KindMessage) {
		return nil
	}
	return f.Raw
}

// answerSnippet is the start of answerBody as one line of text, "" when there is none.
func answerSnippet(res *probe.Result, st probe.Step) string {
	body := answerBody(res, st)
	if len(body) == 0 {
		return ""
	}
	text := strings.Join(strings.Fields(textclip.Storable(string(body), 4*maxAnswerSnippet)), " ")
	return textclip.Bytes(text, maxAnswerSnippet)
}
