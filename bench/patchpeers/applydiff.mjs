// Runs @openai/agents-core's applyDiff over the cases bench/patchpeers
// wrote: argv[2] is a JSON array of {before, diff, n}; each diff is applied
// n times (a retry applies it to the first run's result). Writes
// [{runs: [{ok, file}]}] to argv[3]. A throw is a refusal; the file is then
// what it was.
import { readFileSync, writeFileSync } from 'node:fs';
import { applyDiff } from '@openai/agents-core';

const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const out = cases.map((c) => {
  let cur = c.before;
  const runs = [];
  for (let i = 0; i < c.n; i++) {
    try {
      cur = applyDiff(cur, c.diff);
      runs.push({ ok: true, file: cur });
    } catch (e) {
      runs.push({ ok: false, file: cur });
    }
  }
  return { runs };
});
writeFileSync(process.argv[3], JSON.stringify(out));
