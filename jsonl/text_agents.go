package jsonl

// Search text and list text of the messages, claude and codex dialects
// (SPEC §7, FORMATS.md §4). To be filled in.

func appendAnthropicMessageText(dst, raw []byte) []byte { return dst }

func anthropicUserText(raw []byte) string { return "" }

func appendClaudeText(dst []byte, typ string, raw []byte) []byte { return dst }

func claudeUserText(raw []byte) string { return "" }

func appendCodexText(dst []byte, typ string, raw []byte) []byte { return dst }

func codexUserText(raw []byte) string { return "" }
