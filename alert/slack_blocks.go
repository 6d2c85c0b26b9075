package alert

import (
	"strings"

	"github.com/slack-go/slack"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// Slack's limits on Block Kit text, in characters.
const (
	slackHeaderMax  = 150
	slackSectionMax = 3000
	slackFieldMax   = 2000
	slackFallback   = 1000
)

// slackMessage renders a message as Block Kit blocks, and the plain text Slack shows in
// notifications and where blocks cannot be shown. Everything that comes from a probed server
// is escaped: a server must not be able to mention @channel or forge a link.
func slackMessage(m *Message, dashboardURL string) (string, []slack.Block) {
	title := m.Title()
	page := ServerPage(dashboardURL, m.Server)
	runPage := RunPage(dashboardURL, m.RunID)
	blocks := []slack.Block{
		slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType,
			textclip.Runes(eventEmoji(m.Event, m.Kind)+" "+title, slackHeaderMax), true, false)),
	}
	if m.Summary != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(textclip.Runes(escapeSlack(m.Summary), slackSectionMax)), nil, nil))
	}
	if m.HeldBack != "" {
		blocks = append(blocks, slack.NewContextBlock("", mrkdwn(textclip.Runes(":hourglass_flowing_sand: "+escapeSlack(m.HeldBack), slackSectionMax))))
	}

	var fields []*slack.TextBlockObject
	field := func(name, value string) {
		fields = append(fields, mrkdwn(textclip.Runes("*"+name+"*\n"+value, slackFieldMax)))
	}
	if m.Event != EventTest {
		server := escapeSlack(m.Server)
		if page != "" {
			server = "<" + page + "|" + server + ">"
		}
		field("Server", server)
	}
	if len(m.Regions) > 0 {
		name := "Region"
		if len(m.Regions) > 1 {
			name = "Regions"
		}
		field(name, escapeSlack(strings.Join(m.Regions, ", ")))
	}
	if !m.Since.IsZero() {
		field("Since", timeText(m.Since))
		if m.Event == EventResolved && m.At.After(m.Since) {
			field("Lasted", durationText(m.At.Sub(m.Since)))
		}
	}
	if codes := m.Codes(); codes != "" && !strings.Contains(m.Summary, codes) {
		field("Status", codes) // said once: most summaries name the codes already
	}
	if m.Rule != "" || m.Spec != "" {
		rule := escapeSlack(m.Rule)
		if m.Spec != "" {
			label := rule
			if label == "" {
				label = "specification"
			}
			rule = "<" + m.Spec + "|" + label + ">"
		}
		field("Rule", rule)
	}
	if runPage != "" {
		label := "Failing run"
		switch {
		case m.Event == EventResolved:
			label = "Run"
		case m.HeldOpen:
			label = "Last failing run"
		}
		field(label, "<"+runPage+"|"+escapeSlack(m.RunID)+">")
	}
	if len(fields) > 0 {
		blocks = append(blocks, slack.NewSectionBlock(nil, fields, nil))
	}
	if m.Error != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("*Error*\n```"+textclip.Runes(escapeSlack(m.Error), slackSectionMax-20)+"```"), nil, nil))
	}
	if m.Response != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("*The server answered*\n```"+textclip.Runes(escapeSlack(m.Response), slackSectionMax-40)+"```"), nil, nil))
	}
	if len(m.Lines) > 0 {
		var b strings.Builder
		for _, l := range m.Lines {
			b.WriteString("• " + escapeSlack(l) + "\n")
		}
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(textclip.Runes(strings.TrimSuffix(b.String(), "\n"), slackSectionMax)), nil, nil))
	}
	if m.Warning != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(textclip.Runes(":warning: "+escapeSlack(m.Warning), slackSectionMax)), nil, nil))
	}
	context := "mcpwatch"
	if m.Kind != "" {
		context += " · " + string(m.Kind)
	}
	if m.Key != "" {
		context += " " + escapeSlack(m.Key)
	}
	if m.Incident != "" {
		context += " · incident " + m.Incident
	}
	if !m.At.IsZero() {
		context += " · " + timeText(m.At)
	}
	blocks = append(blocks, slack.NewContextBlock("", mrkdwn(context)))
	if page != "" {
		blocks = append(blocks, slack.NewActionBlock("",
			slack.NewButtonBlockElement("open-dashboard", m.Server, slack.NewTextBlockObject(slack.PlainTextType, "Open in dashboard", false, false)).WithURL(page)))
	}

	fallback := eventEmoji(m.Event, m.Kind) + " " + escapeSlack(title)
	if m.Summary != "" {
		fallback += ": " + escapeSlack(m.Summary)
	}
	if m.HeldBack != "" {
		fallback += " (" + escapeSlack(m.HeldBack) + ")"
	}
	return textclip.Runes(fallback, slackFallback), blocks
}

func mrkdwn(text string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, text, false, false)
}

func eventEmoji(event string, kind Kind) string {
	switch event {
	case EventResolved:
		return ":large_green_circle:"
	case EventReminder:
		return ":repeat:"
	case EventFlapping:
		return ":warning:"
	case EventTest:
		return ":test_tube:"
	}
	switch kind {
	case KindDrift:
		return ":twisted_rightwards_arrows:"
	case KindLatency:
		return ":snail:"
	case KindCertificate:
		return ":lock:"
	case KindConformance:
		return ":large_orange_circle:"
	}
	return ":red_circle:"
}

// escapeSlack escapes the three characters Slack's mrkdwn gives a meaning to (links,
// mentions).
func escapeSlack(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
