package checks

import (
	"strconv"
	"testing"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const fullInitResult = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"fixture","version":"1.0.0"}}`

// listSession scripts a main connection that initializes with initResult and answers a list
// method page by page (one reply per page the probe asks for).
func listSession(transport, initResult, step, method string, pages ...reply) *probe.Result {
	w := newWireScript(transport)
	init := w.call(probe.ConnMain, probe.StepInitialize, "initialize", "1", ruleInitParams, resultReply(initResult))
	w.res.Initialize = init.Result
	w.res.Negotiated, w.res.ProtocolVersion = "2025-11-25", "2025-11-25"
	for i, p := range pages {
		params := ""
		if i > 0 {
			params = `{"cursor":"c` + strconv.Itoa(i) + `"}`
		}
		st := w.call(probe.ConnMain, step, method, strconv.Itoa(i+2), params, p)
		w.res.Steps[len(w.res.Steps)-1].Page = i + 1
		if st.Outcome != probe.OutcomeOK {
			break
		}
	}
	return w.res
}

func TestResourcesListFollowsTheSchemaAndThePaginationRules(t *testing.T) {
	list := func(pages ...reply) *probe.Result {
		return listSession(protocol.TransportStdio, fullInitResult, probe.StepResourcesList, "resources/list", pages...)
	}
	readme := `{"uri":"file:///readme","name":"readme"}`
	notes := `{"uri":"file:///notes","name":"notes"}`
	rows := []checkRow{
		{name: "one page", want: StatusPass, msg: "2 resources on 1 page(s) match ListResourcesResult of 2025-11-25",
			res: list(resultReply(`{"resources":[` + readme + `,` + notes + `]}`))},
		{name: "two pages", want: StatusPass, msg: "2 resources on 2 page(s)",
			res: list(resultReply(`{"resources":[`+readme+`],"nextCursor":"c1"}`), resultReply(`{"resources":[`+notes+`]}`))},
		{name: "a resource without uri", want: StatusFail, msg: "page 1 does not match ListResourcesResult of 2025-11-25",
			res: list(resultReply(`{"resources":[{"name":"readme"}]}`))},
		{name: "the same uri on two pages", want: StatusFail, msg: `resource "file:///readme" is listed on page 1 and again on page 2`,
			res: list(resultReply(`{"resources":[`+readme+`],"nextCursor":"c1"}`), resultReply(`{"resources":[`+readme+`]}`))},
		{name: "a cursor that loops", want: StatusFail, msg: `page 2 returned the cursor "c1" that page 1 already returned: the listing loops`,
			res: list(resultReply(`{"resources":[`+readme+`],"nextCursor":"c1"}`), resultReply(`{"resources":[`+notes+`],"nextCursor":"c1"}`))},
		{name: "a numeric cursor: the schema and the pagination rule both say so", want: StatusFail, msg: "/nextCursor: type: expected string, but got number (and 1 more)",
			res: list(resultReply(`{"resources":[` + readme + `],"nextCursor":2}`))},
		{name: "page 2 fails", want: StatusFail, msg: "page 2 (asked for with the cursor page 1 returned) failed: JSON-RPC error -32602",
			res: list(resultReply(`{"resources":[`+readme+`],"nextCursor":"c1"}`), errorReply(-32602, "bad cursor"))},
		{name: "the declared list fails", want: StatusFail, msg: "resources/list failed although the server declares resources: JSON-RPC error -32601",
			res: list(errorReply(-32601, "Method not found"))},
		{name: "not declared", want: StatusSkip, msg: "server declares no resources capability",
			res: listSession(protocol.TransportStdio, plainInitResult, probe.StepResourcesList, "resources/list", errorReply(-32601, "Method not found"))},
	}
	runCheckRows(t, "resources.list", rows)
}

func TestTemplatesListSkipsWhenTheServerServesNone(t *testing.T) {
	list := func(pages ...reply) *probe.Result {
		return listSession(protocol.TransportHTTP, fullInitResult, probe.StepTemplatesList, "resources/templates/list", pages...)
	}
	rows := []checkRow{
		{name: "a template", want: StatusPass, msg: "1 resource template on 1 page(s) match ListResourceTemplatesResult",
			res: list(resultReply(`{"resourceTemplates":[{"uriTemplate":"file:///{path}","name":"file"}]}`))},
		{name: "a template without uriTemplate", want: StatusFail, msg: "page 1 does not match ListResourceTemplatesResult of 2025-11-25",
			res: list(resultReply(`{"resourceTemplates":[{"name":"file"}]}`))},
		{name: "the same template on two pages", want: StatusFail, msg: `resource template "file:///{path}" is listed on page 1 and again on page 2`,
			res: list(resultReply(`{"resourceTemplates":[{"uriTemplate":"file:///{path}","name":"a"}],"nextCursor":"c1"}`),
				resultReply(`{"resourceTemplates":[{"uriTemplate":"file:///{path}","name":"b"}]}`))},
		{name: "method not found although resources are declared", want: StatusSkip, msg: "lifecycle.capabilities judges whether",
			res: list(errorReply(-32601, "Method not found"))},
	}
	runCheckRows(t, "resources.templates-list", rows)
}

func TestPromptsList(t *testing.T) {
	list := func(pages ...reply) *probe.Result {
		return listSession(protocol.TransportStdio, fullInitResult, probe.StepPromptsList, "prompts/list", pages...)
	}
	rows := []checkRow{
		{name: "prompts", want: StatusPass, msg: "2 prompts on 1 page(s) match ListPromptsResult of 2025-11-25",
			res: list(resultReply(`{"prompts":[{"name":"greet"},{"name":"summarize","arguments":[{"name":"text","required":true}]}]}`))},
		{name: "a prompt without a name", want: StatusFail, msg: "does not match ListPromptsResult",
			res: list(resultReply(`{"prompts":[{"description":"nameless"}]}`))},
		{name: "the same prompt on two pages", want: StatusFail, msg: `prompt "greet" is listed on page 1 and again on page 2`,
			res: list(resultReply(`{"prompts":[{"name":"greet"}],"nextCursor":"c1"}`), resultReply(`{"prompts":[{"name":"greet"}]}`))},
		{name: "not declared", want: StatusSkip, msg: "server declares no prompts capability",
			res: listSession(protocol.TransportStdio, plainInitResult, probe.StepPromptsList, "prompts/list", errorReply(-32601, "Method not found"))},
		{name: "no initialize result", want: StatusUntested, msg: "no initialize or discover result",
			res: scriptedSession(protocol.TransportStdio, func(p *sessionPlan) { p.initialize = errorReply(-32603, "down") })},
	}
	runCheckRows(t, "prompts.list", rows)
}

// The page limit: a listing that still points further after the probe's last page is cut.
func TestListPastThePageLimitFails(t *testing.T) {
	res := listSession(protocol.TransportStdio, fullInitResult, probe.StepPromptsList, "prompts/list",
		resultReply(`{"prompts":[{"name":"a"}],"nextCursor":"c1"}`), resultReply(`{"prompts":[{"name":"b"}],"nextCursor":"c2"}`))
	f := evaluateCheck(t, "prompts.list", res)
	if f.Status != StatusFail || f.Message != "page 2 still returns a nextCursor; the listing goes beyond the probe's limit of 2 pages" {
		t.Errorf("%s %q", f.Status, f.Message)
	}
}
