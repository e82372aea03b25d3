// `npm run bench`: every benchmark, one after the other, as markdown tables
// for the README. Each compares against its own baseline in the same run.
import { runGuardrailBench } from './guardrails.js';
import { guardrailAccuracy, accuracyTable } from './guardrail-accuracy.js';
import { runFirewallBench } from './firewall-engine.js';
import { runMcpBench } from './mcp-overhead.js';
import os from 'node:os';

const only = process.argv.slice(2);
const want = (name: string) => only.length === 0 || only.includes(name);

console.log(`# agentwall benchmarks — node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}\n`);

if (want('guardrails')) {
  console.log('## Guardrail engine (50 keywords, 10 regexes, all PII and secret detectors)\n\n| input | p50 (ms) | p99 (ms) |\n|---|---|---|');
  for (const r of await runGuardrailBench()) console.log(`| ${r.name} | ${r.p50_ms.toFixed(3)} | ${r.p99_ms.toFixed(3)} |`);
  console.log();
}
if (want('accuracy')) {
  const a = guardrailAccuracy();
  console.log(`## Guardrail accuracy (${a.samples} samples, ${a.negatives} hard negatives)\n\n${accuracyTable(a.scores)}\n`);
}
if (want('firewall')) {
  console.log('## Firewall verdict engine (~2 KB arguments, 20 rules)\n\n| case | p50 (µs) | p99 (µs) | reference p50 (µs) | reference p99 (µs) |\n|---|---|---|---|---|');
  for (const r of await runFirewallBench()) console.log(`| ${r.name} | ${r.p50_us} | ${r.p99_us} | ${r.ref_p50_us} | ${r.ref_p99_us} |`);
  console.log();
}
if (want('mcp')) {
  console.log('## MCP tool call overhead (2,000 calls each, interleaved)\n\n| path | p50 (ms) | p99 (ms) |\n|---|---|---|');
  for (const r of await runMcpBench(2000)) console.log(`| ${r.name} | ${r.p50_ms.toFixed(3)} | ${r.p99_ms.toFixed(3)} |`);
  console.log();
}
process.exit(0);
