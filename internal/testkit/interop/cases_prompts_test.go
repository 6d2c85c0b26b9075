//go:build linux

package interop

import "github.com/mcpwatch/mcpwatch/checks"

// The prompt, completion and logging reads as the real servers answer them.
var (
	// 2025-11-25 server/prompts, Getting a Prompt; the schema's GetPromptResult: each server
	// that declares prompts answers prompts/get of its prompts without required arguments
	// with messages whose content is valid (the conformance servers' image prompts included).
	promptsGot = known{id: "prompts.get", status: checks.StatusPass,
		why: "prompts/get of its prompts that need no argument returns a valid GetPromptResult"}
	// 2025-11-25 server/prompts, Error Handling: "Servers SHOULD return standard JSON-RPC
	// errors for common failure cases: Invalid prompt name: -32602 (Invalid params); Missing
	// required arguments: -32602 (Invalid params)".
	promptErrorsMinus32602 = known{id: "prompts.get-invalid", status: checks.StatusPass,
		why: "an unknown prompt and a missing required argument get -32602"}
	// The same sentence: mcp-go and the go-sdk conformance server fill in a prompt whose
	// required argument is missing instead of answering -32602 (a SHOULD, hence a warning).
	promptMissingArgumentServed = known{id: "prompts.get-invalid", status: checks.StatusWarn,
		why: "prompts/get without a required argument returns a prompt, not -32602"}
	// 2025-11-25 server/utilities/completion, Completion Results and the CompleteResult
	// schema: completion.values, at most 100 strings.
	completionValues = known{id: "completion.complete", status: checks.StatusPass,
		why: "completion/complete of a listed argument or template variable returns completion.values"}
	// 2025-11-25 server/utilities/logging, Error Handling: "Servers SHOULD return standard
	// JSON-RPC errors for common failure cases: Invalid log level: -32602 (Invalid params)".
	// server-everything's schema validation answers an invalid level with -32603; the go-sdk
	// takes it with an empty result.
	invalidLevelNotMinus32602 = known{id: "logging.set-level", status: checks.StatusWarn,
		why: "logging/setLevel of the level \"loud\" does not get -32602 (-32603, or an empty result)"}
	// 2025-11-25 server/utilities/logging, Capabilities: "Servers that emit log message
	// notifications MUST declare the logging capability"; none of them logs undeclared.
	logsOnlyDeclared = known{id: "logging.messages", status: checks.StatusPass,
		why: "no notifications/message from a server that did not declare logging"}
)

// promptReads is what a server that declares prompts and completions shows, missingArgument
// the verdict of its prompts/get without a required argument.
func promptReads(missingArgument known) []known {
	return []known{promptsGot, missingArgument, completionValues, logsOnlyDeclared}
}
