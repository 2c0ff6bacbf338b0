// Usage: node record.mjs SCENARIOS_JSON GOLDEN_DIR
//
// Records the answers of the official MCP filesystem server (the pinned
// @modelcontextprotocol/server-filesystem in package.json), driven by the
// official TypeScript client, for every scenario of SCENARIOS_JSON: the
// tools it lists (GOLDEN_DIR/tools.json) and, per scenario, each call's
// result and the tree after it (GOLDEN_DIR/NAME.json). tools/mcpserver's
// TestFilesystemGoldens replays them against txedit's filesystem toolset.
//
// A scenario: {name, dirs: [DIR...], tree: {PATH: ENTRY}, calls: [{tool,
// args, deliberate?}]}. DIRs are the allowed directories, relative to a
// fresh temporary directory ($BASE in args and answers). An ENTRY is a
// string (a file's text; a PATH ending in "/" is a directory), or
// {base64}, {text, mode}, {symlink: TARGET} ($BASE allowed in TARGET). Times in get_file_info's
// answers are written as $TIME: they differ every run.
import { mkdtempSync, mkdirSync, writeFileSync, symlinkSync, chmodSync, readdirSync, lstatSync, readFileSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { join, dirname } from "node:path";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const require = createRequire(import.meta.url);
const serverMain = join(dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist", "index.js");
const serverVersion = JSON.parse(readFileSync(require.resolve("@modelcontextprotocol/server-filesystem/package.json"), "utf8")).version;
const [scenarioFile, goldenDir] = process.argv.slice(2);
const { scenarios } = JSON.parse(readFileSync(scenarioFile, "utf8"));

function makeTree(base, tree) {
  for (const [p, e] of Object.entries(tree)) {
    const full = join(base, p);
    if (p.endsWith("/")) {
      mkdirSync(full, { recursive: true });
      continue;
    }
    mkdirSync(dirname(full), { recursive: true });
    if (typeof e === "string") {
      writeFileSync(full, e);
    } else if (e.symlink !== undefined) {
      symlinkSync(e.symlink.split("$BASE").join(base), full);
    } else if (e.base64 !== undefined) {
      writeFileSync(full, Buffer.from(e.base64, "base64"));
    } else {
      writeFileSync(full, e.text);
    }
    if (typeof e === "object" && e.mode !== undefined) {
      chmodSync(full, e.mode);
    }
  }
}

// snapshot: every entry under base: directories, files (text when it is
// UTF-8 that round-trips, else base64; mode when not 0644) and symlinks.
function snapshot(base) {
  const out = {};
  const walk = (rel) => {
    for (const name of readdirSync(join(base, rel)).sort()) {
      const r = rel ? rel + "/" + name : name;
      const st = lstatSync(join(base, r));
      if (st.isSymbolicLink()) {
        out[r] = { symlink: readlinkSync(join(base, r)).split(base).join("$BASE") };
      } else if (st.isDirectory()) {
        out[r + "/"] = "";
        walk(r);
      } else {
        const data = readFileSync(join(base, r));
        const text = data.toString("utf8");
        const e = Buffer.from(text, "utf8").equals(data) ? { text } : { base64: data.toString("base64") };
        const mode = st.mode & 0o7777;
        if (mode !== 0o644) e.mode = mode;
        out[r] = Object.keys(e).length === 1 && e.text !== undefined ? e.text : e;
      }
    }
  };
  walk("");
  return out;
}

// scrub replaces the temporary directory with $BASE and times with $TIME
// in every string of v.
function scrub(v, base) {
  if (typeof v === "string") {
    let s = v.split(base).join("$BASE");
    s = s.replace(/^(created|modified|accessed): .*$/gm, "$1: $TIME");
    return s;
  }
  if (Array.isArray(v)) return v.map((x) => scrub(x, base));
  if (v && typeof v === "object") {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = scrub(x, base);
    return o;
  }
  return v;
}

function subst(v, base) {
  if (typeof v === "string") return v.split("$BASE").join(base);
  if (Array.isArray(v)) return v.map((x) => subst(x, base));
  if (v && typeof v === "object") {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = subst(x, base);
    return o;
  }
  return v;
}

async function connect(dirs) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [serverMain, ...dirs], stderr: "ignore", env: { ...process.env, TZ: "UTC" } });
  const client = new Client({ name: "txedit-golden-recorder", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

mkdirSync(goldenDir, { recursive: true });
let toolsWritten = false;
for (const sc of scenarios) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "fsgolden-")));
  try {
    makeTree(base, sc.tree ?? {});
    for (const d of sc.dirs) mkdirSync(join(base, d), { recursive: true });
    const client = await connect(sc.dirs.map((d) => join(base, d)));
    if (!toolsWritten) {
      const listed = await client.listTools();
      writeFileSync(join(goldenDir, "tools.json"), JSON.stringify({ server: "@modelcontextprotocol/server-filesystem@" + serverVersion, tools: listed.tools }, null, 1) + "\n");
      toolsWritten = true;
    }
    const steps = [];
    for (const c of sc.calls) {
      let r;
      try {
        r = await client.callTool({ name: c.tool, arguments: subst(c.args ?? {}, base) });
      } catch (e) {
        r = { protocolError: String(e.message ?? e) };
      }
      const result = { isError: Boolean(r.isError), content: r.content ?? [] };
      if (r.structuredContent !== undefined) result.structuredContent = r.structuredContent;
      if (r.protocolError !== undefined) result.protocolError = r.protocolError;
      steps.push({ result: scrub(result, base), tree: snapshot(base) });
    }
    await client.close();
    const golden = { server: "@modelcontextprotocol/server-filesystem@" + serverVersion, name: sc.name, steps };
    writeFileSync(join(goldenDir, sc.name + ".json"), JSON.stringify(golden, null, 1) + "\n");
    console.error(`recorded ${sc.name}: ${steps.length} calls`);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
