#!/usr/bin/env node
// Records what the real tools answer, as golden transcripts that
// tools/peers_test.go replays against txedit's toolsets offline.
//
//   node tools/testdata/peers/record.mjs [--only NAME] [--peers DIR] [--langchain DIR]
//
// For every session file in sessions/ it lays the session's tree out in a
// fresh temporary directory, runs the session's calls, in order, against
// the pinned release of the real tool, and writes golden/NAME.json: the
// calls, the text and error status of every answer, and the tree after.
//
// Claude Code: its own agent loop (`claude -p`) pointed with
// ANTHROPIC_BASE_URL at a stand-in for the Messages API (below) that
// answers each turn with the session's next tool_use and records the
// tool_result Claude Code sends back: exactly the text a model reads.
// The pinned releases are installed from npm into --peers (default
// $TMPDIR/txedit-peers) on first use; nothing else leaves the machine.
//
// LangChain (the adk toolset): langchain-community is not on npm; the
// seven FileManagementToolkit tools run from their source, which
// --langchain names: a directory holding
// langchain_community/tools/file_management/*.py (0.3.x). lc_run.py
// supplies the few langchain_core names they import.
//
// Needs node >= 20, npm, git and python3 (with pydantic) for LangChain.
import {execFileSync, spawn} from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const opts = {only: null, peers: path.join(os.tmpdir(), 'txedit-peers'), langchain: null};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--only') opts.only = process.argv[++i];
  else if (a === '--peers') opts.peers = process.argv[++i];
  else if (a === '--langchain') opts.langchain = process.argv[++i];
  else throw new Error(`unknown argument ${a}`);
}

// T0 is the modification time of a tree's first file; each next file is
// 10 s younger, unless its entry says "mtime" (seconds after T0).
const T0 = 1700000000;

// layTree creates a session's tree in dir: files (text, b64 bytes, or a
// line repeated), directories (a path ending in "/"), symlinks; "git"
// makes it a git repository.
export function layTree(dir, tree) {
  if (tree.git) execFileSync('git', ['init', '-q', dir]);
  (tree.files || []).forEach((f, i) => {
    const p = path.join(dir, f.path);
    if (f.path.endsWith('/')) {
      fs.mkdirSync(p, {recursive: true});
      return;
    }
    fs.mkdirSync(path.dirname(p), {recursive: true});
    if (f.symlink !== undefined) {
      fs.symlinkSync(f.symlink, p);
      return;
    }
    let data;
    if (f.b64 !== undefined) data = Buffer.from(f.b64, 'base64');
    else if (f.repeat !== undefined) data = Buffer.from(f.repeat.repeat(f.times));
    else data = Buffer.from(f.text ?? '');
    fs.writeFileSync(p, data);
    if (f.mode) fs.chmodSync(p, parseInt(f.mode, 8));
    const t = T0 + (f.mtime ?? i * 10);
    fs.utimesSync(p, t, t);
  });
}

// snapshot lists the tree's files after a session (not .git's insides):
// text when the bytes are UTF-8, else base64; symlinks as their target;
// a file of the tree that still has its first bytes as {"unchanged": true}.
function snapshot(dir, tree) {
  const before = new Map();
  for (const f of tree.files || []) {
    if (f.symlink !== undefined || f.path.endsWith('/')) continue;
    before.set(f.path, f.b64 !== undefined ? Buffer.from(f.b64, 'base64') : Buffer.from(f.repeat !== undefined ? f.repeat.repeat(f.times) : f.text ?? ''));
  }
  const out = {};
  const walk = (rel) => {
    for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
      const r = rel ? rel + '/' + name : name;
      if (r === '.git') continue;
      const p = path.join(dir, r);
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) out[r] = {symlink: fs.readlinkSync(p)};
      else if (st.isDirectory()) {
        if (fs.readdirSync(p).length === 0) out[r + '/'] = {};
        walk(r);
      } else {
        const b = fs.readFileSync(p);
        if (before.has(r) && before.get(r).equals(b)) {
          out[r] = {unchanged: true};
          continue;
        }
        const s = b.toString('utf8');
        out[r] = Buffer.from(s, 'utf8').equals(b) ? {text: s} : {b64: b.toString('base64')};
      }
    }
  };
  walk('');
  return out;
}

// fakeAPI serves the Messages API for one session: each request of the
// main loop (the one that offers tools) is answered with the next call as
// a tool_use, then with "done". Other requests (titles, token counts)
// get a plain answer.
function fakeAPI(calls) {
  let step = 0;
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (!req.url.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
        res.writeHead(200, {'content-type': 'application/json'});
        res.end(JSON.stringify({input_tokens: 1}));
        return;
      }
      const b = JSON.parse(body);
      const main = (b.tools || []).length > 0;
      if (main) requests.push(b);
      let content;
      if (main && step < calls.length) {
        const c = calls[step++];
        content = [{type: 'tool_use', id: `toolu_${String(step).padStart(3, '0')}`, name: c.tool, input: c.input}];
      } else content = [{type: 'text', text: 'done'}];
      const stop = content[0].type === 'tool_use' ? 'tool_use' : 'end_turn';
      const msg = {id: `msg_${step}`, type: 'message', role: 'assistant', model: b.model, content, stop_reason: stop, stop_sequence: null, usage: {input_tokens: 1, output_tokens: 1}};
      if (!b.stream) {
        res.writeHead(200, {'content-type': 'application/json'});
        res.end(JSON.stringify(msg));
        return;
      }
      res.writeHead(200, {'content-type': 'text/event-stream'});
      const ev = (t, d) => res.write(`event: ${t}\ndata: ${JSON.stringify({type: t, ...d})}\n\n`);
      ev('message_start', {message: {...msg, content: [], stop_reason: null}});
      content.forEach((c, i) => {
        if (c.type === 'text') {
          ev('content_block_start', {index: i, content_block: {type: 'text', text: ''}});
          ev('content_block_delta', {index: i, delta: {type: 'text_delta', text: c.text}});
        } else {
          ev('content_block_start', {index: i, content_block: {type: 'tool_use', id: c.id, name: c.name, input: {}}});
          ev('content_block_delta', {index: i, delta: {type: 'input_json_delta', partial_json: JSON.stringify(c.input)}});
        }
        ev('content_block_stop', {index: i});
      });
      ev('message_delta', {delta: {stop_reason: stop, stop_sequence: null}, usage: {output_tokens: 1}});
      ev('message_stop', {});
      res.end();
    });
  });
  return {server, requests};
}

// install puts a pinned npm package under opts.peers once.
function install(pkg, version) {
  const dir = path.join(opts.peers, `${pkg.replace('/', '+')}@${version}`);
  if (!fs.existsSync(path.join(dir, 'node_modules', pkg, 'package.json'))) {
    fs.mkdirSync(dir, {recursive: true});
    execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', `${pkg}@${version}`], {stdio: 'inherit'});
  }
  return dir;
}

// claudeBin is the command that runs a pinned Claude Code: 1.x is
// cli.js on node; 2.x is a native binary from its platform package.
function claudeBin(version) {
  const dir = install('@anthropic-ai/claude-code', version);
  const js = path.join(dir, 'node_modules/@anthropic-ai/claude-code/cli.js');
  if (fs.existsSync(js)) return [process.execPath, js];
  const native = path.join(dir, `node_modules/@anthropic-ai/claude-code-${process.platform}-${process.arch}/claude`);
  if (fs.existsSync(native)) return [native];
  return [path.join(dir, 'node_modules/.bin/claude')];
}

const substitute = (v, root) => JSON.parse(JSON.stringify(v).replaceAll('$ROOT', root));
const normalize = (s, root) => s.replaceAll(root, '$ROOT');

// The tool_result content a model reads: a string, or the text of its
// blocks (an image block is noted as [image MEDIA_TYPE]). The agent
// loop's own reminders that 1.x appends to a result (about its TodoWrite
// tool) are not the tool's answer and are left out.
function resultText(c) {
  const text = typeof c.content === 'string' ? c.content
    : (c.content || []).map((b) => (b.type === 'text' ? b.text : `[${b.type} ${b.source?.media_type ?? ''}]`)).join('\n');
  return text.replace(/\n*<system-reminder>\nThe TodoWrite tool hasn't been used recently\.[\s\S]*?<\/system-reminder>\n?$/, '');
}

async function runClaude(session, version) {
  const bin = claudeBin(version);
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'txedit-peer-')));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'txedit-peer-home-'));
  try {
    layTree(root, session.tree);
    const calls = substitute(session.calls, root);
    const {server, requests} = fakeAPI(calls);
    await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
    const tools = [...new Set(session.calls.map((c) => c.tool))];
    const env = {
      ...process.env, HOME: home, ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`, ANTHROPIC_API_KEY: 'sk-offline',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1',
      // 2.x's native build folds search into Bash unless told not to:
      // this brings its Glob and Grep tools back.
      EMBEDDED_SEARCH_TOOLS: '0',
    };
    const out = await new Promise((ok, fail) => {
      const p = spawn(bin[0], [...bin.slice(1), '-p', 'go', '--output-format', 'json', '--allowedTools', ...tools], {cwd: root, env, stdio: ['ignore', 'pipe', 'pipe']});
      let o = '';
      p.stdout.on('data', (d) => (o += d));
      p.stderr.on('data', (d) => (o += d));
      const timer = setTimeout(() => p.kill('SIGKILL'), 180000);
      p.on('close', (code) => {
        clearTimeout(timer);
        code === 0 ? ok(o) : fail(new Error(`claude exited ${code}: ${o.slice(0, 2000)}`));
      });
    });
    server.close();
    const last = requests[requests.length - 1];
    const results = new Map();
    for (const m of last.messages) {
      if (typeof m.content === 'string') continue;
      for (const c of m.content) if (c.type === 'tool_result') results.set(c.tool_use_id, c);
    }
    const recorded = session.calls.map((c, i) => {
      const r = results.get(`toolu_${String(i + 1).padStart(3, '0')}`);
      if (!r) throw new Error(`${session.name}: call ${i + 1} (${c.tool}) got no tool_result; claude said: ${out.slice(0, 500)}`);
      return {...c, text: normalize(resultText(r), root), is_error: r.is_error === true};
    });
    return {recorded, after: snapshot(root, session.tree)};
  } finally {
    fs.rmSync(root, {recursive: true, force: true});
    fs.rmSync(home, {recursive: true, force: true});
  }
}

function runLangChain(session) {
  if (!opts.langchain) throw new Error('the adk sessions need --langchain DIR (langchain-community 0.3.x source)');
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'txedit-peer-')));
  try {
    layTree(root, session.tree);
    const out = execFileSync('python3', [path.join(here, 'lc_run.py'), root], {
      input: JSON.stringify(session.calls), env: {...process.env, PYTHONPATH: opts.langchain}, encoding: 'utf8',
    });
    const answers = JSON.parse(out);
    const recorded = session.calls.map((c, i) => ({...c, text: normalize(answers[i].text, root), is_error: answers[i].is_error}));
    return {recorded, after: snapshot(root, session.tree)};
  } finally {
    fs.rmSync(root, {recursive: true, force: true});
  }
}

const sessionsDir = path.join(here, 'sessions');
const goldenDir = path.join(here, 'golden');
fs.mkdirSync(goldenDir, {recursive: true});
for (const file of fs.readdirSync(sessionsDir).filter((f) => f.endsWith('.json')).sort()) {
  const name = file.replace(/\.json$/, '');
  if (opts.only && opts.only !== name) continue;
  const spec = JSON.parse(fs.readFileSync(path.join(sessionsDir, file), 'utf8'));
  const golden = {toolset: spec.toolset, peer: spec.peer, compare: spec.compare, sessions: []};
  for (const s of spec.sessions) {
    const peer = s.peer || spec.peer;
    let r;
    if (peer.startsWith('@anthropic-ai/claude-code@')) r = await runClaude(s, peer.split('@').pop());
    else if (peer.startsWith('langchain-community@')) r = runLangChain(s);
    else throw new Error(`unknown peer ${peer}`);
    golden.sessions.push({name: s.name, peer, tree: s.tree, calls: r.recorded, after: r.after});
    process.stderr.write(`${name}/${s.name}: ${r.recorded.length} calls\n`);
  }
  fs.writeFileSync(path.join(goldenDir, file), JSON.stringify(golden, null, 1) + '\n');
}
