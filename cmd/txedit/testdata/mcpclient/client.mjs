// Usage: node client.mjs SCENARIO_JSON_FILE
//
// Runs a scenario against `txedit mcp` servers with the official
// TypeScript MCP client and prints one JSON object on stdout.
//
// The scenario: {bin, root, servers: {NAME: {toolset, client, args,
// command, argv, roots}}, steps: [STEP]}. Every server is its own `txedit
// mcp` process on root, connected by its own client whose clientInfo.name
// is `client` (the agent name txedit records); command and argv, if given,
// start it instead exactly so (as a client's configuration would), and
// roots (a list of file:// URIs) make the client offer MCP roots. A STEP
// is one of
//   {id, server, name, arguments}       a tool call
//   {parallel: [CALL, ...]}             calls started together
//   {touch: PATH}                       a new modification time, same bytes
//   {roots: URIS, server}               the client's roots change
//                                       (notifications/roots/list_changed)
// The output: {tools: {NAME: [{name, readOnly, destructive}]},
// results: [{id, server, name, isError, text, images: [{mimeType, data}],
// structured, code}]}, results in the order the steps list the calls; code
// is txedit's error code where the result's _meta carries it.
import { readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const scenario = JSON.parse(readFileSync(process.argv[2], "utf8"));
const clients = {};
const tools = {};
const roots = {};
for (const [name, s] of Object.entries(scenario.servers)) {
  const transport = new StdioClientTransport({
    command: s.command ?? scenario.bin,
    args: s.argv ?? ["mcp", "--toolset", s.toolset, "--root", scenario.root, ...(s.args ?? [])],
    env: { ...process.env },
    stderr: "inherit",
  });
  const client = new Client({ name: s.client ?? "txedit-test-client", version: "1.0.0" },
    s.roots ? { capabilities: { roots: { listChanged: true } } } : {});
  if (s.roots) {
    roots[name] = s.roots;
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots[name].map((uri) => ({ uri })) }));
  }
  await client.connect(transport);
  clients[name] = client;
  const listed = await client.listTools();
  tools[name] = listed.tools.map((t) => ({
    name: t.name,
    readOnly: t.annotations?.readOnlyHint,
    destructive: t.annotations?.destructiveHint,
  }));
}

async function call(c) {
  const r = await clients[c.server].callTool({ name: c.name, arguments: c.arguments });
  return {
    id: c.id ?? "",
    server: c.server,
    name: c.name,
    isError: Boolean(r.isError),
    text: r.content.filter((b) => b.type === "text").map((b) => b.text).join(""),
    images: r.content.filter((b) => b.type === "image").map((b) => ({ mimeType: b.mimeType, data: b.data })),
    structured: r.structuredContent !== undefined,
    code: r._meta?.["txedit/code"] ?? "",
  };
}

const results = [];
for (const step of scenario.steps) {
  if (step.parallel) {
    results.push(...(await Promise.all(step.parallel.map(call))));
  } else if (step.roots) {
    roots[step.server] = step.roots;
    await clients[step.server].sendRootsListChanged();
  } else if (step.touch) {
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(scenario.root, step.touch), later, later);
  } else {
    results.push(await call(step));
  }
}
console.log(JSON.stringify({ tools, results }));
for (const c of Object.values(clients)) {
  await c.close();
}
