// pi-answers.mjs PKG FILE... prints one JSON document: what pi itself
// (@earendil-works/pi-coding-agent, or @mariozechner/pi-coding-agent
// before 1.0, installed in PKG, its package directory) answers for each
// session FILE, for grove's differential test (archive/pidiff_test.go,
// SPEC §3.2: pi is the reference). Both releases export SessionManager,
// buildSessionContext and convertToLlm from dist/index.js.
//
// pi migrates a version 1 or 2 file in place when it opens it: give it
// copies only, never a user's file.
//
// Output: {"files":[{"file","version","entries":[{"id","type"}],
// "active","name","leaves":[{"id","path":[ids],"context":{"messages",
// "thinkingLevel","model"},"llm":[...]}]}]}, entries in file order (the
// header left out), name as getSessionName ("" for none), leaves in file
// order; "error" instead of the file's answers when pi cannot read it, and
// instead of a leaf's context and llm when pi throws building it (pi 1.6
// throws on a context_edit without a replacement).
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [pkg, ...files] = process.argv.slice(2);
const pi = await import(pathToFileURL(join(pkg, "dist", "index.js")).href);
const { SessionManager, buildSessionContext, convertToLlm } = pi;

const out = [];
for (const file of files) {
  try {
    // The version as written, before pi migrates the file.
    const first = readFileSync(file, "utf8").split("\n", 1)[0];
    let version = 1;
    try {
      version = JSON.parse(first).version ?? 1;
    } catch {}
    const sm = SessionManager.open(file, join(file, "..", ".pi-sessions"));
    const entries = sm.getEntries();
    const byId = new Map(entries.map((e) => [e.id, e]));
    const parents = new Set(entries.map((e) => e.parentId));
    const leaves = [];
    for (const e of entries) {
      if (parents.has(e.id)) continue;
      const path = sm.getBranch(e.id).map((p) => p.id);
      try {
        const context = buildSessionContext(entries, e.id, byId);
        leaves.push({ id: e.id, path, context, llm: convertToLlm(context.messages) });
      } catch (err) {
        leaves.push({ id: e.id, path, error: String(err) });
      }
    }
    out.push({
      file,
      version,
      entries: entries.map((e) => ({ id: e.id, type: e.type })),
      active: sm.getLeafId(),
      name: sm.getSessionName() ?? "",
      leaves,
    });
  } catch (err) {
    out.push({ file, error: String(err && err.stack ? err.stack : err) });
  }
}
process.stdout.write(JSON.stringify({ files: out }));
