package checks

// securityChecks are the heuristics of what a server gives a model to read and what its
// errors give away: shown, and gating only when asked to (tool poisoning warns, an error
// leak advises).
func securityChecks() []Check {
	poisoning := newPoisonReader()
	return []Check{
		{ID: "security.tool-poisoning", Area: "security",
			Title:    "no instructions hidden in tool, argument, prompt or resource descriptions or the server's instructions (invisible characters, text addressed to the model, concealment, credential reads, shadowing, encoded blobs)",
			Evaluate: poisoning.check},
		{ID: "security.error-leak", Area: "security",
			Title:    "the error answers the probe provoked show no stack trace, file path, SQL or secret",
			Evaluate: checkErrorLeak},
	}
}
