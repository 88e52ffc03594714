package archive

import (
	"github.com/grove-sessions/grove/internal/agent"
	"github.com/grove-sessions/grove/internal/agent/claude"
)

// Agent is what grove knows of one agent's session files (package
// internal/agent, docs/agents.md): where its sessions live, how a session
// names itself, its previews, its model context. Front ends reach it
// through AgentFor and Agents, never by a dialect's name.
type Agent = agent.Agent

// Traits are an agent's rules that code outside its folder applies as
// data (internal/agent/kit).
type Traits = agent.Traits

// RootsDoc is how the help names an agent's default roots (SPEC §8
// `index`): Help for the commands' help, Hint for the error of a run that
// found none.
type RootsDoc = agent.RootsDoc

// Form is what the messages of an agent's contexts are: PiMessages (pi's
// AgentMessages, which ForLLM converts) or APIMessages (what the model's
// API received, shown as they are).
type Form = agent.Form

// The forms of Traits.Form.
const (
	PiMessages  = agent.PiMessages
	APIMessages = agent.APIMessages
)

// Agents are the agents grove reads, in the order it names their dialects
// (Dialects).
func Agents() []Agent { return agent.All }

// AgentFor is the agent of dialect d; a dialect grove does not know gets
// plain's (SPEC §3).
func AgentFor(d Dialect) Agent { return agent.Of(d) }

// SubagentName is the name a Claude Code sub-agent session takes from the
// agent-<id>.meta.json beside its file (internal/agent/claude
// SubagentName: the description, else the agent type, trimmed); "" when
// path is no sub-agent file or its meta file says nothing. It never fails.
func SubagentName(path string) string { return claude.SubagentName(path) }
