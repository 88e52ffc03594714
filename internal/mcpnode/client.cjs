// grove's driver of the official TypeScript MCP SDK (@modelcontextprotocol/sdk):
// its Client connected over StdioClientTransport to the server command that
// GROVE_MCP_SERVER names ({"command","args","env","cwd"}), the SDK loaded
// from the npm prefix GROVE_MCP_SDK. One JSON request a line on stdin, one
// JSON answer a line on stdout, in order:
//   {"op":"list"}                          -> {"tools":[...],"server":{...},"instructions":"..."}
//   {"op":"call","name":N,"arguments":A}   -> {"result":{"content","structuredContent","isError"}}
//   {"op":"time","name":N,"arguments":A,"n":K}
//                                          -> {"ms":[K round trips, milliseconds]}
//   {"op":"pages","name":N,"arguments":A,"n":K}
//                                          -> {"ms":[K times every page, following
//                                              next_cursor],"pages":P}
// A request that fails answers {"error":"..."}.
"use strict";
const { createRequire } = require("node:module");
const readline = require("node:readline");
const { performance } = require("node:perf_hooks");

const sdk = createRequire(process.env.GROVE_MCP_SDK + "/");
const { Client } = sdk("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = sdk("@modelcontextprotocol/sdk/client/stdio.js");

// Every call may take up to five minutes instead of the SDK's default
// 60 s: on a loaded test machine a call can wait on the processor far
// longer than it works.
const callOptions = { timeout: 5 * 60 * 1000 };

async function answer(client, req) {
  switch (req.op) {
    case "list": {
      const tools = [];
      let cursor;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return { tools, server: client.getServerVersion(), instructions: client.getInstructions() };
    }
    case "call":
      return { result: await client.callTool({ name: req.name, arguments: req.arguments }, undefined, callOptions) };
    case "time": {
      const ms = [];
      for (let i = 0; i < req.n; i++) {
        const start = performance.now();
        const r = await client.callTool({ name: req.name, arguments: req.arguments }, undefined, callOptions);
        ms.push(performance.now() - start);
        if (r.isError) {
          throw new Error("call " + i + " of " + req.name + " failed: " + JSON.stringify(r.content).slice(0, 500));
        }
      }
      return { ms };
    }
    case "pages": {
      const ms = [];
      let pages = 0;
      for (let i = 0; i < req.n; i++) {
        const start = performance.now();
        pages = 0;
        for (let cursor; ; ) {
          const args = cursor ? { ...req.arguments, cursor } : req.arguments;
          const r = await client.callTool({ name: req.name, arguments: args }, undefined, callOptions);
          pages++;
          if (r.isError) {
            throw new Error("page " + pages + " of " + req.name + " failed: " + JSON.stringify(r.content).slice(0, 500));
          }
          cursor = r.structuredContent && r.structuredContent.next_cursor;
          if (!cursor) break;
        }
        ms.push(performance.now() - start);
      }
      return { ms, pages };
    }
  }
  throw new Error("no op " + JSON.stringify(req.op));
}

async function main() {
  const server = JSON.parse(process.env.GROVE_MCP_SERVER);
  const transport = new StdioClientTransport({ ...server, stderr: "inherit" });
  const client = new Client({ name: "grove-test", version: "0" });
  await client.connect(transport);
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    let out;
    try {
      out = await answer(client, JSON.parse(line));
    } catch (e) {
      out = { error: String((e && e.stack) || e) };
    }
    process.stdout.write(JSON.stringify(out) + "\n");
  }
  await client.close();
}

main().catch((e) => {
  process.stderr.write(String((e && e.stack) || e) + "\n");
  process.exit(1);
});
