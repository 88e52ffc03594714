package jsonl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grove-sessions/grove/internal/testutil"
)

// The lines below are copied from ../shared/corpus (envelope fields such as
// sessionId, cwd and timestamps cut where a rule does not read them), or
// written in the shapes FORMATS.md §1.12, §2.9 and §3.3 show where the
// corpus has no sample (thinking, images, compaction, attachments).

// b64 is image data as agents store it: base64 that must never be indexed.
var b64 = strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB", 20)

func TestAppendAnthropicMessageText(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"user string", `{"role":"user","content":"列出当前目录的文件"}`, "列出当前目录的文件\n"},
		{"text and tool_use", `{"role":"assistant","content":[{"type":"text","text":"好的，我来看看当前目录。"},{"type":"tool_use","id":"toolu_01A7Xq3bLm9RkT2","name":"bash","input":{"command":"ls -la"}}]}`,
			"好的，我来看看当前目录。\nbash\nls -la\n"},
		{"tool_use input nested", `{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"edit","input":{"path":"a.go","edits":[{"old":"x","new":"y","n":2}]}}]}`,
			"edit\na.go\nx\ny\n"},
		{"tool_result strings", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01D4mNv8QeRt6Ua","content":"  120 src/agent.ts\n   48 src/tools.ts\n  168 total"},{"type":"tool_result","tool_use_id":"toolu_01D4mNv8QeRt6Ub","content":"cat: package.json: No such file or directory","is_error":true}]}`,
			"  120 src/agent.ts\n   48 src/tools.ts\n  168 total\ncat: package.json: No such file or directory\n"},
		{"tool_result blocks skip image", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"shot taken"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + b64 + `"}}]}]}`,
			"shot taken\n"},
		{"image block", `{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + b64 + `"}},{"type":"text","text":"what is this"}]}`,
			"what is this\n"},
		{"thinking without signature", `{"role":"assistant","content":[{"type":"thinking","thinking":"the user wants ls","signature":"EqQBCkYIBxgCKkDsecretsignature"},{"type":"text","text":"ok"}]}`,
			"the user wants ls\nok\n"},
		{"redacted thinking", `{"role":"assistant","content":[{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"}]}`, ""},
		{"unknown role kept", `{"role":"system","content":"be brief"}`, "be brief\n"},
		{"content not text", `{"role":"user","content":42}`, ""},
		{"not an object", `["role","user"]`, ""},
		{"cut short", `{"role":"user","content":"abc`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(appendAnthropicMessageText(nil, []byte(tt.line))); got != tt.want {
				t.Errorf("appendAnthropicMessageText(%s) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

func TestAnthropicUserText(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"string", `{"role":"user","content":"刚才我让你做什么了"}`, "刚才我让你做什么了"},
		{"text blocks joined", `{"role":"user","content":[{"type":"text","text":"look at"},{"type":"image","source":{"type":"base64","data":"` + b64 + `"}},{"type":"text","text":"this"}]}`, "look at this"},
		{"tool_result only", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01Bq8ZfW2nVx4Yc","content":"你好，世界"}]}`, ""},
		{"escapes decoded", `{"role":"user","content":"a\"b\u00e9\ud800"}`, "a\"bé\uFFFD"},
		{"no content", `{"role":"user"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := anthropicUserText([]byte(tt.line)); got != tt.want {
				t.Errorf("anthropicUserText(%s) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

func TestAppendClaudeText(t *testing.T) {
	tests := []struct {
		name, typ, line, want string
	}{
		{"user string", "user", `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/src/experiments/claude_p","sessionId":"29ccd257-68b1-427f-ae5f-6524b7cb6f20","version":"2.1.17","gitBranch":"","type":"user","message":{"role":"user","content":"Use the Explore task in sub-agents with Haiku model to give me an overview of the code organization in the /workspace/claude-code-log project"},"uuid":"u1","timestamp":"2026-01-23T17:34:42.726Z"}`,
			"Use the Explore task in sub-agents with Haiku model to give me an overview of the code organization in the /workspace/claude-code-log project\n"},
		{"thinking never signature", "assistant", `{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"msg_01","role":"assistant","content":[{"type":"thinking","thinking":"list the files","signature":"EoQBCkYIBRgCKkBsignatureMustNotBeIndexed"}]},"requestId":"req_01","uuid":"a1"}`,
			"list the files\n"},
		{"empty thinking", "assistant", `{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"EoQBCkYIBRgCKkB"}]},"uuid":"a1"}`, ""},
		{"tool_use", "assistant", `{"parentUuid":"a1","isSidechain":false,"type":"assistant","message":{"id":"msg_01","role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"ls","description":"List files"},"caller":{"type":"direct"}}]},"requestId":"req_01","uuid":"a2"}`,
			"Bash\nls\nList files\n"},
		{"tool_result string, toolUseResult left out", "user", `{"parentUuid":"a2","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"a.txt\nb.txt"}]},"toolUseResult":{"stdout":"a.txt\nb.txt","stderr":"","interrupted":false},"sourceToolAssistantUUID":"a2","uuid":"r1"}`,
			"a.txt\nb.txt\n"},
		{"tool_result blocks", "user", `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01K","type":"tool_result","content":[{"type":"text","text":"## Component Summary"},{"type":"text","text":"agentId: a2271d1"}]}]},"uuid":"r2"}`,
			"## Component Summary\nagentId: a2271d1\n"},
		{"image never base64", "user", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"see screenshot"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + b64 + `"}}]},"uuid":"u2"}`,
			"see screenshot\n"},
		{"system with ANSI", "system", `{"parentUuid":"c1e287ae-58be-48f1-afed-e9c6788b299b","isSidechain":false,"userType":"external","cwd":"/Users/dain/workspace/claude-code-log","version":"1.0.55","gitBranch":"main","type":"system","content":"Running \u001b[1mPostToolUse:Edit\u001b[22m...","isMeta":false,"timestamp":"2025-07-19T23:56:52.469Z","uuid":"77a1e162-9ba8-48b3-8bbf-c20936f9f8bf","toolUseID":"toolu_01EDwAuJ3XK3eSjRKFaP87QY","level":"info"}`,
			"Running PostToolUse:Edit...\n"},
		{"compact_boundary", "compact_boundary", `{"parentUuid":null,"logicalParentUuid":"r1","type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"manual","preTokens":151234},"uuid":"cb"}`,
			"Conversation compacted\n"},
		{"compact summary is searched", "user", `{"parentUuid":"cb","type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation"},"uuid":"cs"}`,
			"This session is being continued from a previous conversation\n"},
		{"attachment hook context list", "attachment", `{"parentUuid":"a0","isSidechain":false,"type":"attachment","attachment":{"type":"hook_additional_context","hookEvent":"SessionStart","hookName":"SessionStart:startup","content":["session context"]},"uuid":"x0"}`,
			"session context\n"},
		{"attachment hook context string", "attachment", `{"type":"attachment","attachment":{"type":"hook_additional_context","content":"Skill router: matches"},"uuid":"x1"}`,
			"Skill router: matches\n"},
		{"attachment hook success", "attachment", `{"type":"attachment","attachment":{"type":"hook_success","hookName":"Stop","stdout":"ok"},"uuid":"x2"}`, ""},
		{"progress", "progress", `{"parentUuid":null,"isSidechain":false,"type":"progress","data":{"type":"hook_progress","hookEvent":"SessionStart","hookName":"SessionStart:startup","command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/clmail.cmd\" actor start"},"parentToolUseID":"f0931ac3","uuid":"p1"}`, ""},
		{"unknown type", "future-thing", `{"type":"future-thing","content":"hidden","uuid":"f1"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(appendClaudeText(nil, tt.typ, []byte(tt.line))); got != tt.want {
				t.Errorf("appendClaudeText(%q, %s) = %q, want %q", tt.typ, tt.line, got, tt.want)
			}
		})
	}
}

func TestClaudeUserText(t *testing.T) {
	const env = `"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/Users/dain/workspace/claude-code-log","version":"1.0.55","gitBranch":"main","type":"user",`
	tests := []struct {
		name, line, want string
	}{
		{"string", `{` + env + `"message":{"role":"user","content":"Thanks! Please update CLAUDE.md for current changes"},"uuid":"u"}`, "Thanks! Please update CLAUDE.md for current changes"},
		{"isMeta null is not meta", `{"parentUuid":null,"isSidechain":true,"agentId":"c63fe96c","type":"user","message":{"role":"user","content":"Warmup"},"isMeta":null,"uuid":"ebcbd877"}`, "Warmup"},
		{"caveat isMeta", `{` + env + `"message":{"role":"user","content":"Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to."},"isMeta":true,"uuid":"cc67b20e"}`, ""},
		{"caveat without isMeta", `{` + env + `"message":{"role":"user","content":"Caveat: The messages below were generated by the user while running local commands. DO NOT respond."},"uuid":"cc67b20f"}`, ""},
		{"expanded command isMeta", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Please analyze this codebase and create a CLAUDE.md file"}]},"isMeta":true,"uuid":"m"}`, ""},
		{"compact summary", `{"parentUuid":"cb","type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation"},"uuid":"cs"}`, ""},
		{"tool_result only", `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01MEJ7TRMeoTyDi6EZLHM2zY","type":"tool_result","content":"No files found"}]},"uuid":"r"}`, ""},
		{"clear has no args", `{` + env + `"message":{"role":"user","content":"<command-name>/clear</command-name>\n          <command-message>clear</command-message>\n          <command-args></command-args>"},"uuid":"e042a3e0"}`, ""},
		{"init has no args", `{"parentUuid":null,"type":"user","message":{"role":"user","content":"<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>"},"uuid":"e2ab9812"}`, ""},
		{"command with args", `{"parentUuid":null,"type":"user","message":{"role":"user","content":"<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>create TODO app by Next.js</command-args>"},"uuid":"62e0bdc0"}`, "/orchestrator create TODO app by Next.js"},
		{"command name without slash", `{"type":"user","message":{"role":"user","content":"<command-name>review</command-name><command-args>PR 12</command-args>"},"uuid":"c"}`, "/review PR 12"},
		{"local command stdout", `{` + env + `"message":{"role":"user","content":"<local-command-stdout></local-command-stdout>"},"uuid":"092e3ca9"}`, ""},
		{"bash input", `{` + env + `"message":{"role":"user","content":"<bash-input>uv run pytest test/test_project_display_name.py</bash-input>"},"uuid":"972dc1ad"}`, ""},
		{"bash stdout", `{` + env + `"message":{"role":"user","content":"<bash-stdout>============================= test session starts</bash-stdout><bash-stderr></bash-stderr>"},"uuid":"b"}`, ""},
		{"interrupted", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]},"uuid":"i"}`, ""},
		{"IDE context left out", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<ide_opened_file>The user opened the file /Users/dain/workspace/danieldemmel.me-next/data/blog/the-leftist-case-for-generative-ai.mdx in the IDE. This may or may not be related to the current task.</ide_opened_file>"},{"type":"text","text":"I keep getting mysterious build errors – how can I disable that?"}]},"uuid":"u"}`,
			"I keep getting mysterious build errors – how can I disable that?"},
		{"IDE context only", `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<ide_selection>x := 1</ide_selection>"}]},"uuid":"u"}`, ""},
		{"wrapper words inside a prompt are kept", `{"type":"user","message":{"role":"user","content":"why does <bash-input> show up in my transcript?"},"uuid":"u"}`, "why does <bash-input> show up in my transcript?"},
		{"image and text", `{"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"` + b64 + `"}},{"type":"text","text":"what is this"}]},"uuid":"u"}`, "what is this"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := claudeUserText([]byte(tt.line)); got != tt.want {
				t.Errorf("claudeUserText(%s) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

func TestAppendCodexText(t *testing.T) {
	const ts = `"timestamp":"2026-01-02T03:04:07.001Z",`
	tests := []struct {
		name, typ, line, want string
	}{
		{"user message", "response_item", `{` + ts + `"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"List the synthetic files."}]}}`, "List the synthetic files.\n"},
		{"assistant message", "response_item", `{` + ts + `"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"[REDACTED_TEXT len=156 sha=2a40230f]"}],"phase":"commentary"}}`, "[REDACTED_TEXT len=156 sha=2a40230f]\n"},
		{"developer message", "response_item", `{` + ts + `"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>sandbox</permissions instructions>"}]}}`, "<permissions instructions>sandbox</permissions instructions>\n"},
		{"input_image never indexed", "response_item", `{` + ts + `"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,` + b64 + `"},{"type":"input_text","text":"what is on the screen"}]}}`, "what is on the screen\n"},
		{"reasoning never encrypted_content", "response_item", `{"timestamp":"2026-01-02T03:04:08.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"I will inspect the synthetic directory."}],"encrypted_content":"SYNTHETIC_ENCRYPTED_CONTENT_MUST_NOT_RENDER"}}`, "I will inspect the synthetic directory.\n"},
		{"reasoning content text", "response_item", `{"type":"response_item","payload":{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"raw thought"}],"encrypted_content":null}}`, "raw thought\n"},
		{"function_call JSON arguments", "response_item", `{"timestamp":"2026-01-02T03:04:09.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"find . -maxdepth 1 -type f\",\"yield_time_ms\":1000}","call_id":"call-structured-001"}}`, "exec_command\nfind . -maxdepth 1 -type f\n"},
		{"function_call JSON array arguments", "response_item", `{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"c"}}`, "shell\nbash\n-lc\nls\n"},
		{"function_call text arguments", "response_item", `{"type":"response_item","payload":{"type":"function_call","name":"mcp__cloud-associates__search_workflows","arguments":"[REDACTED_ARGUMENTS len=46 sha=4cb9a2fc]","call_id":"call_OIMY41RetdVChp5U51mMLGOD"}}`, "mcp__cloud-associates__search_workflows\n[REDACTED_ARGUMENTS len=46 sha=4cb9a2fc]\n"},
		{"function_call_output string", "response_item", `{"timestamp":"2026-01-02T03:04:10.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call-structured-001","output":"./alpha.txt\n./beta.txt"}}`, "./alpha.txt\n./beta.txt\n"},
		{"function_call_output JSON text kept", "response_item", `{"timestamp":"2026-01-02T03:04:14.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call-mcp-001","output":"{\"status\":\"ok\"}"}}`, "{\"status\":\"ok\"}\n"},
		{"function_call_output older wrapper", "response_item", `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"{\"output\":\"a.txt\\nb.txt\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"}}`, "a.txt\nb.txt\n\n"},
		{"function_call_output object", "response_item", `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":{"content":"done","success":true}}}`, "done\n"},
		{"custom_tool_call", "response_item", `{"timestamp":"2026-01-02T03:04:11.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Add File: gamma.txt\n+synthetic\n*** End Patch","call_id":"call-custom-001"}}`, "apply_patch\n*** Begin Patch\n*** Add File: gamma.txt\n+synthetic\n*** End Patch\n"},
		{"custom_tool_call_output list", "response_item", `{"timestamp":"2026-01-02T03:04:12.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call-custom-001","output":[{"type":"output_text","text":"Done!"}]}}`, "Done!\n"},
		{"output list image skipped", "response_item", `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[{"type":"input_image","image_url":"https://example.com/x.png"},{"type":"input_text","text":"see image"}]}}`, "see image\n"},
		{"local_shell_call", "response_item", `{"type":"response_item","payload":{"type":"local_shell_call","call_id":"c","status":"completed","action":{"type":"exec","command":["git","status"],"working_directory":"/w"}}}`, "git\nstatus\n/w\n"},
		{"web_search_call", "response_item", `{"type":"response_item","payload":{"type":"web_search_call","status":"completed","action":{"type":"search","query":"sqlite fts5 trigram"}}}`, "sqlite fts5 trigram\n"},
		{"legacy bare item", "response_item", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The synthetic legacy session is open."}]}`, "The synthetic legacy session is open.\n"},
		{"compacted", "compacted", `{"timestamp":"2026-02-23T20:00:00.000Z","type":"compacted","payload":{"message":"Summary of the earlier turns","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"old prompt"}]}]}}`, "Summary of the earlier turns\n"},
		{"event user_message", "event_msg", `{"timestamp":"2026-01-02T03:04:07.000Z","type":"event_msg","payload":{"type":"user_message","message":"List the synthetic files."}}`, "List the synthetic files.\n"},
		{"event agent_message", "event_msg", `{"timestamp":"2026-01-02T03:04:15.000Z","type":"event_msg","payload":{"type":"agent_message","message":"The synthetic files are alpha.txt and beta.txt."}}`, "The synthetic files are alpha.txt and beta.txt.\n"},
		{"event agent_reasoning", "event_msg", `{"timestamp":"2026-02-23T19:34:38.549Z","type":"event_msg","payload":{"type":"agent_reasoning","text":"[REDACTED_TEXT len=32 sha=beedaecc]"}}`, "[REDACTED_TEXT len=32 sha=beedaecc]\n"},
		{"event token_count", "event_msg", `{"timestamp":"2026-02-23T19:34:34.390Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"limit_id":"codex","limit_name":null}}}`, ""},
		{"event task_started", "event_msg", `{"type":"event_msg","payload":{"type":"task_started","turn_id":"019c8bfe-ed40-7a21-b57f-6447436c5881","model_context_window":258400,"collaboration_mode_kind":"default"}}`, ""},
		{"turn_context", "turn_context", `{"timestamp":"2026-01-02T03:04:06.000Z","type":"turn_context","payload":{"cwd":"/workspace/synthetic-project","model":"synthetic-model","approval_policy":"never","sandbox_policy":{"type":"read-only"}}}`, ""},
		{"unknown type", "future_synthetic_record", `{"timestamp":"2026-01-02T03:04:16.000Z","type":"future_synthetic_record","payload":{"safe":"ignored"}}`, ""},
		{"compaction item", "response_item", `{"type":"response_item","payload":{"type":"compaction","encrypted_content":"gAAAAABpsecret"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(appendCodexText(nil, tt.typ, []byte(tt.line))); got != tt.want {
				t.Errorf("appendCodexText(%q, %s) = %q, want %q", tt.typ, tt.line, got, tt.want)
			}
		})
	}
}

func TestCodexUserText(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"prompt", `{"timestamp":"2025-12-28T12:21:44.491Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"can you analyse the MD files in this directory and determine if the info we have is clear enough to start planning the migration?"}]}}`,
			"can you analyse the MD files in this directory and determine if the info we have is clear enough to start planning the migration?"},
		{"environment context", `{"timestamp":"2025-12-28T12:18:30.533Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/Users/macmini/Code/homelab-migration</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>"}]}}`, ""},
		{"AGENTS.md", `{"timestamp":"2025-12-28T12:18:30.533Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /Users/macmini/Code/homelab-migration\n\n<INSTRUCTIONS>\n## Skills\n</INSTRUCTIONS>"}]}}`, ""},
		{"INSTRUCTIONS", `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"\n<INSTRUCTIONS>be careful</INSTRUCTIONS>"}]}}`, ""},
		{"user_instructions", `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<user_instructions>\n\nuse pnpm\n\n</user_instructions>"}]}}`, ""},
		{"context block beside the prompt", `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context><cwd>/w</cwd></environment_context>"},{"type":"input_text","text":"fix the tests"}]}}`, "fix the tests"},
		{"image beside the prompt", `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,` + b64 + `"},{"type":"input_text","text":"what is this"}]}}`, "what is this"},
		{"legacy bare item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"Open the synthetic legacy session."}]}`, "Open the synthetic legacy session."},
		{"no content", `{"type":"response_item","payload":{"type":"message","role":"user"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codexUserText([]byte(tt.line)); got != tt.want {
				t.Errorf("codexUserText(%s) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

// TestAgentTextCorpus reads every ../shared/corpus file of the messages,
// claude and codex dialects with ReadFile and takes the search text and
// user text of each entry through the dialect's Rules, as the index does:
// no line may panic or give invalid UTF-8, words known to be in each
// dialect's files are found, words that must not be indexed are not
// (encrypted content, hook commands, block types, event_msg copies counted
// once), and each session's first message (the first user message entry
// with text, in file order, as archive's refresh takes it) is the one the
// rules give.
func TestAgentTextCorpus(t *testing.T) {
	root := testutil.MustShared(t, "corpus")
	tests := []struct {
		dialect   string
		found     []string
		never     []string
		count     map[string]int    // words and how often they are indexed
		firstText map[string]string // file name → first message
	}{
		{
			dialect: "messages",
			found:   []string{"列出当前目录的文件", "ls -la", "code.ts", "你好，世界", "wc -l src/*.ts", "No such file or directory"},
			never:   []string{"toolu_01A7Xq3bLm9RkT2", "tool_use"},
			firstText: map[string]string{
				"ls-demo.jsonl":        "列出当前目录的文件",
				"parallel-tools.jsonl": "统计 src 目录下 TypeScript 文件的行数，再看看有没有 package.json",
			},
		},
		{
			dialect: "claude",
			found:   []string{"markdownlint", "Running PostToolUse:Edit...", "## Component Summary", "Warmup", "npx create-next-app@latest"},
			never:   []string{"clmail.cmd", "hook_progress", "\x1b[1m", "\u001b"},
			firstText: map[string]string{
				"71c9afe9-d9cc-4583-86b3-e62ba682b83a.jsonl": "Please have a look at this patch diff, I changed my mind a bit about it and would like to combine the logic",
				"fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl": "/orchestrator create TODO app by Next.js",
				"1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl": "",
				"5ed31c36-bca8-40fd-8d24-f1a1f0af7901.jsonl": "I keep getting mysterious build errors when MDX files have URLs",
				"29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl": "Use the Explore task in sub-agents with Haiku model",
			},
		},
		{
			dialect: "codex",
			found: []string{"List the synthetic files.", "I will inspect the synthetic directory.", "find . -maxdepth 1 -type f",
				"*** Begin Patch", "Done!", "Open the synthetic legacy session.", "can you analyse the MD files",
				"sha=beedaecc", "mcp__cloud-associates__search_workflows", "[REDACTED_OUTPUT len=4215 sha=9a9d94de]"},
			never: []string{"SYNTHETIC_ENCRYPTED_CONTENT_MUST_NOT_RENDER", "REDACTED_ENCRYPTED_CONTENT", "ignored", "gpt-5.2-codex", "output_text", "exit_code"},
			// The event_msg copy after its response_item is not indexed again
			// (the reader marks it, SPEC §3.5).
			count: map[string]int{"can you analyse the MD files in this directory": 1},
			firstText: map[string]string{
				"rollout-2025-12-28T12-18-30-019b64e5-57fa-7463-b644-fba7e456f905.jsonl": "can you analyse the MD files in this directory",
				"rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl": "List the synthetic files.",
				"rollout-44444444-4444-4444-8444-444444444444.jsonl":                     "Open the synthetic legacy session.",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.dialect, func(t *testing.T) {
			var all []byte
			files, entries := 0, 0
			first := map[string]string{}
			err := filepath.WalkDir(filepath.Join(root, tt.dialect), func(path string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
					return err
				}
				es, res, err := ReadFile(path, Salvage)
				if err != nil {
					return err
				}
				if string(res.Dialect) != tt.dialect {
					t.Errorf("%s: dialect %s, want %s", path, res.Dialect, tt.dialect)
				}
				files++
				rules, name := RulesOf(res.Dialect), filepath.Base(path)
				for i := range es {
					e := &es[i]
					entries++
					text := rules.AppendSearchText(nil, e)
					user := rules.UserText(e)
					if !utf8.Valid(text) || !utf8.ValidString(user) {
						t.Errorf("%s:%d: text is not valid UTF-8: %q / %q", path, e.Line, text, user)
					}
					if _, seen := first[name]; !seen && e.Role == "user" && rules.HasMessage(e.Type, e.Role) && user != "" {
						first[name] = user
					}
					all = append(all, text...)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if files == 0 || entries == 0 {
				t.Fatalf("no %s files or entries under %s", tt.dialect, root)
			}
			t.Logf("%s: %d files, %d entries, %d bytes of search text", tt.dialect, files, entries, len(all))
			for _, w := range tt.found {
				if !bytes.Contains(all, []byte(w)) {
					t.Errorf("%s search text lacks %q", tt.dialect, w)
				}
			}
			for _, w := range tt.never {
				if bytes.Contains(all, []byte(w)) {
					t.Errorf("%s search text holds %q", tt.dialect, w)
				}
			}
			for w, n := range tt.count {
				if got := bytes.Count(all, []byte(w)); got != n {
					t.Errorf("%s search text holds %q %d times, want %d", tt.dialect, w, got, n)
				}
			}
			for name, want := range tt.firstText {
				if got := first[name]; !strings.HasPrefix(got, want) || want == "" && got != "" {
					t.Errorf("first message of %s = %q, want %q…", name, got, want)
				}
			}
		})
	}
}

// BenchmarkAgentText measures the search text of every entry of the
// ../shared/corpus files of one dialect, in bytes of entry lines per second.
func BenchmarkAgentText(b *testing.B) {
	root := testutil.MustShared(b, "corpus")
	for _, d := range []Dialect{Messages, Claude, Codex} {
		b.Run(string(d), func(b *testing.B) {
			var es []Entry
			size := 0
			err := filepath.WalkDir(filepath.Join(root, string(d)), func(path string, de os.DirEntry, err error) error {
				if err != nil || de.IsDir() || !strings.HasSuffix(path, ".jsonl") {
					return err
				}
				got, _, err := ReadFile(path, Salvage)
				for _, e := range got {
					size += len(e.Raw)
				}
				es = append(es, got...)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			rules := RulesOf(d)
			b.SetBytes(int64(size))
			b.ResetTimer()
			var dst []byte
			for i := 0; i < b.N; i++ {
				for j := range es {
					dst = rules.AppendSearchText(dst[:0], &es[j])
					_ = rules.UserText(&es[j])
				}
			}
		})
	}
}
