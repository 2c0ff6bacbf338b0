// Usage: node client.mjs TXEDIT_BINARY TOOLSET ROOT CALLS_JSON
// Connects to `txedit mcp` over stdio with the official TypeScript client,
// lists the tools, makes the calls in order, and prints one JSON object:
// {tools: [{name, readOnly, destructive}], results: [{name, isError, text}]}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, toolset, root, callsJson] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: bin,
  args: ["mcp", "--toolset", toolset, "--root", root],
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "txedit-test-client", version: "1.0.0" });
await client.connect(transport);
const listed = await client.listTools();
const results = [];
for (const call of JSON.parse(callsJson)) {
  const r = await client.callTool({ name: call.name, arguments: call.arguments });
  results.push({
    name: call.name,
    isError: Boolean(r.isError),
    text: r.content.filter((c) => c.type === "text").map((c) => c.text).join(""),
  });
}
console.log(JSON.stringify({
  tools: listed.tools.map((t) => ({ name: t.name, readOnly: t.annotations?.readOnlyHint, destructive: t.annotations?.destructiveHint })),
  results,
}));
await client.close();
