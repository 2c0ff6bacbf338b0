// Usage: node loop.mjs SDK_DIR
//
// The client side of bench/agentloopbench: the official TypeScript MCP
// client (@modelcontextprotocol/sdk, imported from SDK_DIR, the package's
// directory, so this script may live anywhere). It reads one task a line
// on stdin, runs it, and writes one JSON line on stdout: one node process
// for the whole benchmark, so no measure pays for node's start.
//
// A task:
//   {server: {command, args, env, cwd}, kind: "calls" | "spawn",
//    reads: [CALL], calls: [CALL], expect: TEXT, spawns: N,
//    strace: {bin, out}, timings: BOOL, graceful: BOOL}
// where CALL is {name, arguments}.
//
// kind "calls": start the server, make the reads (untimed: txedit's
// read-before-write rule), then the calls one after the other, each
// answered before the next is sent, timing each. Every answer must not be
// an error and its text must contain expect (the diff's "@@"). With
// strace, strace -f -c -o OUT -p PID is attached to the server after the
// reads and detached after the calls: the calls' system calls alone. With
// timings, the server's stderr is read for TXEDIT_TIMINGS lines
// ("txedit: [COMMAND: ]PHASE DURATION"), summed by phase.
// kind "spawn": spawns times, start the server, initialize, list its tools
// and time that; stop it (untimed).
//
// The answer: {ms: [each call], cpu_ticks: the server's user+system time
// over the calls, in /proc clock ticks, phases: {PHASE: ms}, spawn_ms:
// [...], tools: N}, or {error: TEXT}.
import { readFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const sdkDir = process.argv[2];
const sdk = (p) => pathToFileURL(join(sdkDir, "dist", "esm", p)).href;
const { Client } = await import(sdk("client/index.js"));
const { StdioClientTransport } = await import(sdk("client/stdio.js"));

function transport(task, stderr) {
  return new StdioClientTransport({
    command: task.server.command,
    args: task.server.args,
    env: { ...process.env, ...(task.server.env ?? {}) },
    cwd: task.server.cwd,
    stderr,
  });
}

// cpuTicks returns a process's user + system time in clock ticks.
function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(f[11]) + Number(f[12]); // utime, stime: fields 14 and 15
}

function text(r) {
  return (r.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("");
}

async function call(task, client, c) {
  const r = await client.callTool({ name: c.name, arguments: c.arguments });
  const t = text(r);
  if (r.isError) {
    throw new Error(`${c.name} ${JSON.stringify(c.arguments)}: error: ${t.slice(0, 500)}`);
  }
  if (task.expect && !t.includes(task.expect)) {
    throw new Error(`${c.name} ${JSON.stringify(c.arguments)}: the answer lacks ${JSON.stringify(task.expect)}: ${t.slice(0, 500)}`);
  }
}

// attach starts strace on pid and resolves once every thread is attached.
function attach(task, pid) {
  const st = spawn(task.strace.bin, ["-f", "-c", "-o", task.strace.out, "-p", String(pid)], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let said = "";
  const exited = new Promise((resolve) => st.on("exit", (code, sig) => resolve({ code, sig })));
  const attached = new Promise((resolve, reject) => {
    st.stderr.on("data", (d) => {
      said += d;
      if (/attached/.test(said)) resolve();
    });
    exited.then(({ code }) => reject(new Error(`strace exited (${code}) before attaching: ${said}`)));
  });
  return { st, attached, exited };
}

async function calls(task) {
  const tr = transport(task, "pipe");
  const phases = {};
  const said = []; // the server's other stderr lines, for an error
  let partial = "";
  tr.stderr.on("data", (d) => {
    partial += d;
    let nl;
    while ((nl = partial.indexOf("\n")) >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      const m = timingLine.exec(line);
      if (m && task.timings) {
        phases[m[1]] = (phases[m[1]] ?? 0) + duration(m[2]);
      } else if (line.trim()) {
        said.push(line);
        if (said.length > 20) said.shift();
      }
    }
  });
  const client = new Client({ name: "agentloopbench", version: "1.0.0" });
  let trace;
  try {
    await client.connect(tr);
    for (const c of task.reads ?? []) {
      await client.callTool({ name: c.name, arguments: c.arguments });
    }
    const pid = tr.pid;
    if (task.strace) {
      trace = attach(task, pid);
      await trace.attached;
    }
    for (const k of Object.keys(phases)) delete phases[k]; // the start's and the reads' own
    const ms = [];
    const cpu0 = cpuTicks(pid);
    for (const c of task.calls) {
      if (task.think_ms > 0) await new Promise((r) => setTimeout(r, task.think_ms));
      const t0 = process.hrtime.bigint();
      await call(task, client, c);
      ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const cpu = cpuTicks(pid) - cpu0;
    if (trace) {
      trace.st.kill("SIGINT");
      const { code, sig } = await trace.exited;
      trace = undefined;
      if (code !== 0 && sig !== "SIGINT") throw new Error(`strace exited (${code}, ${sig})`);
    }
    return { ms, cpu_ticks: cpu, phases };
  } catch (e) {
    throw new Error(`${e?.stack ?? e}\nthe server's stderr:\n${said.join("\n")}`);
  } finally {
    if (trace) trace.st.kill("SIGKILL");
    await stop(task, client, tr);
  }
}

// A TXEDIT_TIMINGS line: "txedit: [COMMAND: ]PHASE DURATION".
const timingLine = /^txedit: (?:\S+: )*([a-z]+)\s+([0-9.]+(?:ns|µs|us|ms|s|m))$/;

// duration parses Go's time.Duration text (100µs, 1.5ms, 2s) into ms.
function duration(s) {
  const m = /^([0-9.]+)(ns|µs|us|ms|s|m)$/.exec(s);
  if (!m) return 0;
  const unit = { ns: 1e-6, "µs": 1e-3, us: 1e-3, ms: 1, s: 1e3, m: 6e4 }[m[2]];
  return Number(m[1]) * unit;
}

async function spawns(task) {
  const spawnMs = [];
  let tools = 0;
  for (let i = 0; i < task.spawns; i++) {
    const t0 = process.hrtime.bigint();
    const tr = transport(task, "ignore");
    const client = new Client({ name: "agentloopbench", version: "1.0.0" });
    await client.connect(tr);
    const listed = await client.listTools();
    spawnMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
    tools = listed.tools.length;
    await stop(task, client, tr);
  }
  return { spawn_ms: spawnMs, tools };
}

// stop ends a server at once (SIGTERM: its work is done and answered)
// rather than waiting for it to notice the end of its input; with
// task.graceful, by the end of its input alone (so that a server run with
// TXEDIT_CPUPROFILE writes its profile).
async function stop(task, client, tr) {
  if (tr.pid && !task.graceful) {
    try {
      process.kill(tr.pid, "SIGTERM");
    } catch {
      // gone already
    }
  }
  await client.close();
}

for await (const line of createInterface({ input: process.stdin })) {
  let out;
  try {
    const task = JSON.parse(line);
    out = task.kind === "spawn" ? await spawns(task) : await calls(task);
  } catch (e) {
    out = { error: String(e?.stack ?? e) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
