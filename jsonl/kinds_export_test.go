package jsonl

// ClaudeFactsForTest sets what f's line is for a fuzz test: class is
// "assistant" (with message id msg and tool_use id tool when not ""),
// "results" (of tool), "prompt", "meta", "command", "caveat" or "other".
func ClaudeFactsForTest(f KindFacts, class, msg, tool string) KindFacts {
	f.Class = map[string]lineClass{"assistant": classAssistant, "results": classResults, "prompt": classPrompt,
		"meta": classMeta, "command": classCommand, "caveat": classCaveat, "other": classOther}[class]
	f.Msg = msg
	if tool != "" {
		f.Tools = []string{tool}
	}
	return f
}
