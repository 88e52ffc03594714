package archive_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grove-sessions/grove/archive"
	"github.com/grove-sessions/grove/jsonl"
)

func TestPreview(t *testing.T) {
	tests := []struct {
		name, line, want string
		width            int // 0: PreviewWidth
	}{
		{"user text", `{"type":"message","message":{"role":"user","content":"fix  the\nbuild"}}`, "fix the build", 0},
		{"tool call keeps && and <>", `{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","name":"bash","arguments":{"command":"cd a && make <x>"}}]}}`, `→ bash {"command":"cd a && make <x>"}`, 0},
		{"metadata", `{"type":"metadata","key":"cwd","value":"/a&b"}`, `cwd = "/a&b"`, 0},
		{"bash run", `{"type":"message","message":{"role":"bashExecution","command":"ls -la"}}`, "$ ls -la", 0},
		{"cleared label", `{"type":"label","targetId":"x1"}`, "label x1 cleared", 0},
		{"clipped", `{"type":"message","message":{"role":"user","content":"abcdefghijklmnop"}}`, "abcdefghi…", 10},
		{"not JSON", `{"type":`, "", 0},
		{"string custom_message content", `{"type":"custom_message","customType":"w","content":"note"}`, "[w] note", 0},
		{"a field of another type is skipped, not fatal", `{"type":"message","message":{"role":"toolResult","toolName":7,"content":[{"type":"text","text":"ok"}]}}`, "[] ok", 0},
		{"assistant thinking only", `{"type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"}]}}`, "(thinking) hmm", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.width
			if w == 0 {
				w = archive.PreviewWidth
			}
			if got := archive.Preview([]byte(tt.line), w); got != tt.want {
				t.Errorf("Preview(%s) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

// PreviewIn takes any committed line in any dialect: it never panics, and what it returns is
// one line of at most width runes.
func FuzzPreview(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","name":"bash","arguments":{"command":"ls"}}]}}`,
		`{"type":"message","message":{"role":"user","content":"a\nb"}}`,
		`{"type":"custom_message","content":[{"type":"text","text":"x"}]}`,
		`{"type":"metadata","key":"k","value":[1,{"a":null}]}`,
		`[]`, `null`, `{"type":"label"}`,
		`{"role":"assistant","content":[{"type":"tool_use","name":"bash","input":{"command":"ls"}}]}`,
		`{"type":"user","message":{"role":"user","content":"<command-name>/x</command-name>"}}`,
		`{"type":"system","subtype":"compact_boundary","logicalParentUuid":"r1"}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"f","arguments":"{\"a\":1}"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"a\nb"}}`,
	} {
		for d := range jsonl.Dialects {
			f.Add([]byte(s), 20, d)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte, width, dialect int) {
		width = width%200 + 1
		if width < 1 {
			width += 200
		}
		d := jsonl.Dialects[(dialect%len(jsonl.Dialects)+len(jsonl.Dialects))%len(jsonl.Dialects)]
		p := archive.PreviewIn(d, line, width)
		if n := utf8.RuneCountInString(p); n > width {
			t.Errorf("Preview(%q, %d) = %q: %d runes", line, width, p, n)
		}
		if strings.ContainsAny(p, "\n\r") {
			t.Errorf("Preview(%q) = %q spans lines", line, p)
		}
	})
}

// TestPreviewIn gives the one-line preview of each kind of line of the
// messages, claude and codex dialects (FORMATS.md §1.4, §2.4, §3.1).
func TestPreviewIn(t *testing.T) {
	tests := []struct {
		dialect jsonl.Dialect
		name    string
		line    string
		want    string
		width   int // 0: PreviewWidth
	}{
		// messages: one chat message per line.
		{jsonl.Messages, "user string", `{"role":"user","content":"列出  当前目录"}`, "列出 当前目录", 0},
		{jsonl.Messages, "assistant text wins over its tool_use", `{"role":"assistant","content":[{"type":"text","text":"好的。"},{"type":"tool_use","id":"t1","name":"bash","input":{"command":"ls"}}]}`, "好的。", 0},
		{jsonl.Messages, "tool_use alone", `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"bash","input":{"command":"ls -la"}}]}`, "[tool_use bash] ls -la", 0},
		{jsonl.Messages, "tool_use without a command is JSON", `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read","input":{"path":"a&b.go"}}]}`, `[tool_use read] {"path":"a&b.go"}`, 0},
		{jsonl.Messages, "tool_result", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt\nb.txt"}]}`, "[tool_result] a.txt b.txt", 0},
		{jsonl.Messages, "tool_result error with blocks", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"no such file"}]}]}`, "[tool_result error] no such file", 0},
		{jsonl.Messages, "image alone", `{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}`, "[image]", 0},
		{jsonl.Messages, "not JSON", `{"role":`, "", 0},

		// claude: lines with a type.
		{jsonl.Claude, "user string", `{"type":"user","uuid":"u1","message":{"role":"user","content":"fix the\nbuild"}}`, "fix the build", 0},
		{jsonl.Claude, "assistant text", `{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}}`, "Done.", 0},
		{jsonl.Claude, "tool_use Bash", `{"type":"assistant","uuid":"a2","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls","description":"list"}}]}}`, "[tool_use Bash] ls", 0},
		{jsonl.Claude, "tool_use Read", `{"type":"assistant","uuid":"a2","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a/b.go"}}]}}`, `[tool_use Read] {"file_path":"/a/b.go"}`, 0},
		{jsonl.Claude, "tool_result", `{"type":"user","uuid":"r1","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"a.txt\nb.txt"}]}}`, "[tool_result] a.txt b.txt", 0},
		{jsonl.Claude, "thinking", `{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"thinking","thinking":"list first","signature":"Eo"}]}}`, "(thinking) list first", 0},
		{jsonl.Claude, "empty thinking with only a signature", `{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"Eo"}]}}`, "", 0},
		{jsonl.Claude, "compact_boundary", `{"parentUuid":null,"logicalParentUuid":"r1","type":"system","subtype":"compact_boundary","content":"Conversation compacted","uuid":"cb"}`, "compaction (continues from r1)", 0},
		{jsonl.Claude, "compact summary", `{"parentUuid":"cb","type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"},"uuid":"cs"}`, "[compact summary] This session is being continued", 0},
		{jsonl.Claude, "isMeta", `{"type":"user","isMeta":true,"message":{"role":"user","content":"Caveat: local commands"},"uuid":"m1"}`, "[meta] Caveat: local commands", 0},
		{jsonl.Claude, "IDE context beside the prompt", `{"type":"user","uuid":"i1","message":{"role":"user","content":[{"type":"text","text":"<ide_opened_file>The user opened the file /a/b.mdx in the IDE.</ide_opened_file>"},{"type":"text","text":"I keep getting build errors"}]}}`, "I keep getting build errors", 0},
		{jsonl.Claude, "IDE context alone", `{"type":"user","uuid":"i2","message":{"role":"user","content":[{"type":"text","text":"<ide_selection>x := 1</ide_selection>"}]}}`, "<ide_selection>x := 1</ide_selection>", 0},
		{jsonl.Claude, "isMeta null is not meta", `{"type":"user","isMeta":null,"message":{"role":"user","content":"hi"},"uuid":"m1"}`, "hi", 0},
		{jsonl.Claude, "slash command wrapper", `{"type":"user","uuid":"c1","message":{"role":"user","content":"<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n<command-args>create TODO app</command-args>"}}`, "/orchestrator create TODO app", 0},
		{jsonl.Claude, "bash mode wrapper", `{"type":"user","uuid":"c2","message":{"role":"user","content":"<bash-input>uv run pytest</bash-input>"}}`, "! uv run pytest", 0},
		{jsonl.Claude, "command output wrapper", `{"type":"user","uuid":"c3","message":{"role":"user","content":"<local-command-stdout>Set model to opus</local-command-stdout>"}}`, "Set model to opus", 0},
		{jsonl.Claude, "tags inside prose stay", `{"type":"user","uuid":"c4","message":{"role":"user","content":"what is <bash-input>?"}}`, "what is <bash-input>?", 0},
		{jsonl.Claude, "system content without escapes", `{"type":"system","content":"Running \u001b[1mPostToolUse:Edit\u001b[22m...","uuid":"s1","level":"info"}`, "Running PostToolUse:Edit...", 0},
		{jsonl.Claude, "system without content", `{"type":"system","subtype":"turn_duration","durationMs":5,"uuid":"s2"}`, "[system turn_duration]", 0},
		{jsonl.Claude, "hook progress", `{"type":"progress","data":{"type":"hook_progress","hookEvent":"SessionStart","hookName":"SessionStart:startup","command":"start.sh"},"uuid":"p1"}`, "[progress hook SessionStart:startup] start.sh", 0},
		{jsonl.Claude, "other progress", `{"type":"progress","data":{"type":"agent_progress"},"uuid":"p2"}`, "[progress agent_progress]", 0},
		{jsonl.Claude, "attachment", `{"type":"attachment","attachment":{"type":"hook_success"},"uuid":"t1"}`, "[attachment hook_success]", 0},
		{jsonl.Claude, "unknown type", `{"type":"future-thing","uuid":"f1"}`, "[future-thing]", 0},
		{jsonl.Claude, "a field of another type is skipped", `{"type":"user","isMeta":"yes","message":{"role":"user","content":"hi"},"uuid":"m1"}`, "hi", 0},
		{jsonl.Claude, "clipped", `{"type":"user","uuid":"u1","message":{"role":"user","content":"abcdefghijklmnop"}}`, "abcdefghi…", 10},

		// codex: rollout envelopes.
		{jsonl.Codex, "user message", `{"timestamp":"2026-02-23T19:34:26.099Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"列出文件"}]}}`, "列出文件", 0},
		{jsonl.Codex, "assistant message", `{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"两个文件。"}]}}`, "两个文件。", 0},
		{jsonl.Codex, "developer message", `{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"be brief"}]}}`, "[developer] be brief", 0},
		{jsonl.Codex, "function_call", `{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"ls\"}","call_id":"call_1"}}`, `[function_call exec_command] {"cmd":"ls"}`, 0},
		{jsonl.Codex, "function_call with arguments that are no JSON", `{"type":"response_item","payload":{"type":"function_call","name":"x","arguments":"[REDACTED_ARGUMENTS len=9]","call_id":"c"}}`, `[function_call x] [REDACTED_ARGUMENTS len=9]`, 0},
		{jsonl.Codex, "function_call_output", `{"type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a.txt\nb.txt"}}`, "[function_call_output] a.txt b.txt", 0},
		{jsonl.Codex, "function_call_output object", `{"type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":{"content":"ok","success":true}}}`, "[function_call_output] ok", 0},
		{jsonl.Codex, "custom_tool_call", `{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"c"}}`, "[custom_tool_call apply_patch] *** Begin Patch", 0},
		{jsonl.Codex, "custom_tool_call_output list", `{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c","output":[{"type":"output_text","text":"Done!"}]}}`, "[custom_tool_call_output] Done!", 0},
		{jsonl.Codex, "reasoning summary", `{"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"I will look."}],"encrypted_content":"SECRET"}}`, "(reasoning) I will look.", 0},
		{jsonl.Codex, "event user_message", `{"type":"event_msg","payload":{"type":"user_message","message":"列出文件","images":[]}}`, "[user_message] 列出文件", 0},
		{jsonl.Codex, "event agent_reasoning", `{"type":"event_msg","payload":{"type":"agent_reasoning","text":"thinking aloud"}}`, "[agent_reasoning] thinking aloud", 0},
		{jsonl.Codex, "event token_count", `{"type":"event_msg","payload":{"type":"token_count","info":null}}`, "[token_count]", 0},
		{jsonl.Codex, "turn_context", `{"type":"turn_context","payload":{"turn_id":"t","cwd":"/p","model":"gpt-5.3-codex"}}`, "[turn_context gpt-5.3-codex]", 0},
		{jsonl.Codex, "compacted", `{"type":"compacted","payload":{"message":"summary of the work","replacement_history":[]}}`, "[compacted] summary of the work", 0},
		{jsonl.Codex, "legacy bare item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"Open the legacy session."}]}`, "Open the legacy session.", 0},
		{jsonl.Codex, "unknown envelope", `{"timestamp":"2026-01-02T03:04:16.000Z","type":"future_synthetic_record","payload":{"safe":"ignored"}}`, "[future_synthetic_record]", 0},
		{jsonl.Codex, "not an object", `[1,2]`, "", 0},
	}
	for _, tt := range tests {
		t.Run(string(tt.dialect)+"/"+tt.name, func(t *testing.T) {
			w := tt.width
			if w == 0 {
				w = archive.PreviewWidth
			}
			if got := archive.PreviewIn(tt.dialect, []byte(tt.line), w); got != tt.want {
				t.Errorf("PreviewIn(%s, %s) = %q, want %q", tt.dialect, tt.line, got, tt.want)
			}
		})
	}
}
