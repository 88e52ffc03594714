// Package kit holds what every agent of package agent is built from:
// the words the agent.Agent interface speaks (Context and Model, the
// model context at a leaf; Traits, an agent's rules that code outside its
// folder applies as data; Facts and Identity, what a session says of
// itself; RootsDoc, FileKind) and the helpers two or more agents share
// (JavaScript's view of JSON values for pi's rules, one-level JSON
// decoding that never copies a line, the preview of an Anthropic Messages
// API message that messages logs and Claude Code both hold).
//
// It sits below every agent folder (internal/agent/pi, plain, messages,
// claude, codex) and imports only jsonl; the folders import it, and the
// registry (package agent) re-exports its types, so that callers outside
// internal/agent never need to name it.
//
// # Caveats
//
//   - Helpers here decode JSON loosely on purpose: a field of an unexpected
//     type is skipped, never an error (a preview or a context shows what
//     is there). The strict rules of SPEC §3 are the reader's (jsonl).
package kit
