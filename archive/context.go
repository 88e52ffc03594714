package archive

import (
	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/internal/agent/kit"
	"github.com/grove-sessions/grove/internal/agent/pi"
)

// Context is what a model receives at a leaf (SPEC §4.1, pi's
// buildSessionContext; §3.4–3.6 for the other agents): the messages, the
// entry each came from, the thinking level and the model. Its fields are
// internal/agent's Context (kit.Context), which each agent's rules build.
type Context agent.Context

// Model is a model as pi tracks it along a path: provider and modelId as
// the entry wrote them (an assistant message's "model" is its modelId).
type Model = agent.Model

// ForLLM returns the context as a model receives it (SPEC §4.1 --llm), by
// the rules of its dialect's agent: pi's convertToLlm for pi and plain
// (internal/agent/pi.ForLLM: bash runs, custom messages and summaries
// become user messages with pi's wrapper texts; a !! bash run and roles pi
// drops are left out; KeptEntryIDs follow the messages kept); for the
// messages, claude and codex dialects, whose messages already are what the
// model received, a copy of c with the same messages. Settings are shared
// with c, not copied.
func (c *Context) ForLLM() *Context {
	return (*Context)(agent.Of(c.Dialect).ForLLM((*agent.Context)(c)))
}

// BuildContext is pi's model context over path (SPEC §4.1): the entries
// from a root to the leaf, root first, as PathTo returns them, with Raw
// for the types that can change a context, of a session of pi version
// version (0 for plain; see internal/agent/pi BuildContext for the rules).
// The context's Dialect and Version are left "" and 0. The only error is
// bad_line for a line that is not a JSON object, a message entry without a
// message object, or a context_edit without a replacement where pi throws.
func BuildContext(path []FileEntry, version int) (*Context, error) {
	c, err := pi.BuildContext(path, version)
	return (*Context)(c), err
}

// JSONText renders a decoded JSON value compactly for people: &, < and >
// stay as they are (json.Marshal would write \u0026 for the && of a shell
// command).
func JSONText(v any) string { return kit.JSONText(v) }
