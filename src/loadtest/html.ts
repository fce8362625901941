/**
 * `--html`: the report as one self-contained file (no network needed to open it): the table, the
 * latency second by second (p50, p99, max) beside the rates asked, sent and answered, and the
 * latency distribution over the percentiles, drawn with uPlot (its script and style inlined from
 * the `uplot` package, the dashboard's), the report's JSON embedded as data.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { formatSummary, formatTable, type Report } from './report.js';

const require = createRequire(import.meta.url);

function asset(path: string): string {
  return readFileSync(require.resolve(`uplot/dist/${path}`), 'utf8');
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** JSON safe inside a <script> element. */
const scriptJson = (x: unknown) => JSON.stringify(x).replace(/</g, '\\u003c');

const DRAW = `
const r = JSON.parse(document.getElementById('report-data').textContent);
const width = Math.min(1000, document.body.clientWidth - 20);
const s = r.series;
const x = s.map((p) => p.second);
new uPlot({
  title: 'Latency by second (ms, from each request\\'s due time)', width, height: 300,
  scales: { x: { time: false } },
  axes: [{ label: 'second' }, { label: 'ms' }],
  series: [{ label: 'second' }, { label: 'p50', stroke: '#2a7' }, { label: 'p99', stroke: '#d80' }, { label: 'max', stroke: '#c33' }],
}, [x, s.map((p) => p.p50), s.map((p) => p.p99), s.map((p) => p.max)], document.getElementById('latency'));
new uPlot({
  title: 'Requests per second', width, height: 220,
  scales: { x: { time: false } },
  axes: [{ label: 'second' }, { label: 'requests/s' }],
  series: [{ label: 'second' }, { label: 'asked', stroke: '#888', dash: [4, 4] }, { label: 'sent', stroke: '#36c' },
    { label: 'answered', stroke: '#2a7' }, { label: 'failed', stroke: '#c33' }],
}, [x, s.map((p) => p.asked), s.map((p) => p.sent), s.map((p) => p.answered), s.map((p) => p.failed)], document.getElementById('rates'));
// The distribution on a scale of nines: 1 is 90%, 2 is 99%, 3 is 99.9%.
const d = r.distribution.filter((p) => p.percentile < 100);
const nines = d.map((p) => -Math.log10(1 - p.percentile / 100));
new uPlot({
  title: 'Latency distribution (ms at each percentile)', width, height: 300,
  scales: { x: { time: false } },
  axes: [{ label: 'percentile', splits: (u, i, min, max) => [0, 1, 2, 3, 4, 5].filter((t) => t <= max),
    values: (u, ticks) => ticks.map((t) => ['0%', '90%', '99%', '99.9%', '99.99%', '99.999%'][t]) },
    { label: 'ms' }],
  series: [{ label: 'percentile', value: (u, v) => v == null ? '' : (100 * (1 - Math.pow(10, -v))).toFixed(3) + '%' }, { label: 'latency', stroke: '#36c' }],
}, [nines, d.map((p) => p.ms)], document.getElementById('distribution'));
`;

export function reportHtml(r: Report, unit: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>laurel loadtest ${escapeHtml(r.runId)}</title>
<style>${asset('uPlot.min.css')}
body { font-family: system-ui, sans-serif; margin: 10px; } pre { background: #f5f5f5; padding: 8px; white-space: pre-wrap; }
.fail { color: #c33; } .pass { color: #2a7; }</style></head>
<body>
<h1>laurel loadtest <span class="${r.verdict.pass ? 'pass' : 'fail'}">${r.verdict.pass ? 'PASS' : 'FAIL'}</span></h1>
<p>${escapeHtml(r.url)}, scenario ${escapeHtml(r.scenario)}, started ${escapeHtml(r.startedAt)}, ${r.durationS} s</p>
<pre>${escapeHtml(formatTable(r))}\n\n${escapeHtml(formatSummary(r, unit))}</pre>
<div id="latency"></div><div id="rates"></div><div id="distribution"></div>
<script id="report-data" type="application/json">${scriptJson(r)}</script>
<script>${asset('uPlot.iife.min.js')}</script>
<script>${DRAW}</script>
</body></html>
`;
}
