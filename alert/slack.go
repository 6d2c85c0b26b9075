package alert

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/slack-go/slack"

	"github.com/mcpwatch/mcpwatch/internal/redact"
)

// slackSender posts to Slack through an incoming webhook or, with a bot token, through
// chat.postMessage (which, unlike a webhook, can post to a channel a route picks and reply in
// the thread of the incident's first message).
type slackSender struct {
	name       string
	webhookURL string // secret
	token      string // secret
	channel    string
	apiURL     string
	client     *http.Client
	red        *redact.Redactor
	api        *slack.Client
}

var _ Sender = (*slackSender)(nil)

func (s *slackSender) init() {
	if s.token == "" {
		return
	}
	opts := []slack.Option{slack.OptionHTTPClient(s.client)}
	if s.apiURL != "" {
		opts = append(opts, slack.OptionAPIURL(s.apiURL))
	}
	// slack-go's own retries stay off: the outbox retries, with the attempt recorded.
	s.api = slack.New(s.token, opts...)
}

// Slack API errors that another attempt cannot fix.
var permanentSlackErrors = map[string]bool{
	"invalid_auth": true, "not_authed": true, "account_inactive": true, "token_revoked": true,
	"token_expired": true, "no_permission": true, "missing_scope": true, "channel_not_found": true,
	"not_in_channel": true, "is_archived": true, "invalid_blocks": true, "invalid_blocks_format": true,
	"msg_too_long": true, "no_text": true, "too_many_attachments": true, "restricted_action": true,
	"invalid_arguments": true, "invalid_arg_name": true, "ekm_access_denied": true,
}

// notUpdatable reports whether a Slack API error of chat.update means the message cannot be
// edited, so that the update is posted in the thread instead.
func notUpdatable(code string) bool {
	return code == "message_not_found" || code == "cant_update_message" || code == "edit_window_closed"
}

func (s *slackSender) Send(ctx context.Context, m *Message, d Delivery) (string, error) {
	if m.Event == EventUpdate && s.api != nil {
		if channel, ts, ok := strings.Cut(d.ThreadRef, " "); ok && channel != "" && ts != "" {
			err := s.update(ctx, m, d, channel, ts)
			if se, isSlack := errors.AsType[slack.SlackErrorResponse](err); !isSlack || !notUpdatable(se.Err) {
				return "", err
			}
			// The first message cannot be edited: say it in its thread.
		}
	}
	text, blocks := slackMessage(m, d.DashboardURL)
	if s.api == nil {
		err := slack.PostWebhookCustomHTTPContext(ctx, s.webhookURL, s.client, &slack.WebhookMessage{
			Text:   text,
			Blocks: &slack.Blocks{BlockSet: blocks},
		})
		if err != nil {
			return "", s.classify(err)
		}
		return "", nil
	}

	channel := s.channel
	if d.Target != "" {
		channel = d.Target
	}
	opts := []slack.MsgOption{slack.MsgOptionText(text, false), slack.MsgOptionBlocks(blocks...)}
	if refChannel, ts, ok := strings.Cut(d.ThreadRef, " "); ok && refChannel != "" && ts != "" {
		// Later messages of an incident answer its first one; resolutions and reminders
		// are shown in the channel too.
		channel = refChannel
		opts = append(opts, slack.MsgOptionTS(ts), slack.MsgOptionBroadcast())
	}
	gotChannel, ts, err := s.api.PostMessageContext(ctx, channel, opts...)
	if err != nil {
		return "", s.classify(err)
	}
	return gotChannel + " " + ts, nil
}

// update rewrites the incident's first message with the news of m (chat.update), so that the
// channel shows the alert as it stands (a down alert's regions) rather than as it began.
func (s *slackSender) update(ctx context.Context, m *Message, d Delivery, channel, ts string) error {
	first := *m
	first.Event = EventFiring
	first.Lines = append(slices.Clone(m.Lines), "updated at "+timeText(m.At))
	text, blocks := slackMessage(&first, d.DashboardURL)
	_, _, _, err := s.api.UpdateMessageContext(ctx, channel, ts, slack.MsgOptionText(text, false), slack.MsgOptionBlocks(blocks...))
	if err != nil {
		if se, ok := errors.AsType[slack.SlackErrorResponse](err); ok && notUpdatable(se.Err) {
			return err
		}
		return s.classify(err)
	}
	return nil
}

// classify turns slack-go's errors into a SendError.
func (s *slackSender) classify(err error) error {
	if rl, ok := errors.AsType[*slack.RateLimitedError](err); ok {
		e := newSendError(s.name, s.red, http.StatusTooManyRequests, err)
		e.RetryAfter = min(rl.RetryAfter, maxRetryAfter)
		return e
	}
	if sc, ok := errors.AsType[slack.StatusCodeError](err); ok {
		e := newSendError(s.name, s.red, sc.Code, err)
		e.Permanent = permanentStatus(sc.Code)
		return e
	}
	if se, ok := errors.AsType[slack.SlackErrorResponse](err); ok {
		e := newSendError(s.name, s.red, http.StatusOK, err)
		e.Permanent = permanentSlackErrors[se.Err]
		return e
	}
	return newSendError(s.name, s.red, 0, err)
}
