// One JSON request per line on stdin, one JSON answer per line on stdout (nodescript):
//   {"op": "connect", "command": "...", "args": [...], "env": {...}}   stdio transport
//   {"op": "connect", "url": "http://.../mcp", "token": "..."}         streamable HTTP
//   {"op": "listTools"}                       → {"tools": [{"name", "inputSchema"}]}
//   {"op": "call", "name": "...", "arguments": {...}}
//                                             → {"isError", "structuredContent", "text"}
import readline from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

let client;

async function handle(req) {
  switch (req.op) {
    case "connect": {
      client = new Client({ name: "paycore-e2e", version: "1.0.0" });
      const transport = req.url
        ? new StreamableHTTPClientTransport(new URL(req.url), {
            requestInit: req.token ? { headers: { Authorization: `Bearer ${req.token}` } } : {},
          })
        : new StdioClientTransport({ command: req.command, args: req.args ?? [], env: req.env ?? {}, stderr: "inherit" });
      await client.connect(transport);
      return { server: client.getServerVersion() };
    }
    case "listTools": {
      const { tools } = await client.listTools();
      return { tools: tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema })) };
    }
    case "call": {
      const res = await client.callTool({ name: req.name, arguments: req.arguments ?? {} });
      const text = (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
      return { isError: res.isError === true, structuredContent: res.structuredContent ?? null, text };
    }
    case "close":
      await client?.close();
      return {};
    default:
      throw new Error(`unknown op ${req.op}`);
  }
}

const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  let out;
  try {
    out = await handle(JSON.parse(line));
  } catch (err) {
    out = { error: String(err?.message ?? err) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
// stdin closed: the test is over. An HTTP transport may hold the event loop open (its
// stream's reconnection), so close within a moment and exit.
await Promise.race([client?.close(), new Promise((resolve) => setTimeout(resolve, 2000))]);
process.exit(0);
