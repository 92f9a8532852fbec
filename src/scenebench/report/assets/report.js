/* scenebench HTML report: summary, charts, sample browser. Data comes from the JSON block
   #sb-data; every string from it is inserted with textContent (never innerHTML), so text from
   predictions can never become markup or script. */
(function () {
  'use strict';
  const DATA = JSON.parse(document.getElementById('sb-data').textContent);
  const C = window.ScenebenchCharts, V = window.ScenebenchViewer;
  const fmt = C.fmt;

  function el(tag, attrs) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'cls') e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    for (let i = 2; i < arguments.length; i++) {
      const c = arguments[i];
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return e;
  }
  function option(value, label, selected) { const o = el('option', { value: value, text: label }); if (selected) o.selected = true; return o; }
  const $ = (id) => document.getElementById(id);

  const runs = DATA.runs;
  const multi = runs.length > 1;
  // The histogram and the sample browser open on a run that is not the oracle (whose histogram
  // is one bar at 100%).
  const state = { run: DATA.default_run || 0, bench: null, limit: 200, selected: null, viewer: null };

  // Runs grouped by benchmark, in first-seen order: a run can only be compared with, and only
  // shares samples with, runs of its own benchmark.
  const BENCHES = [];
  runs.forEach(function (r, i) {
    let b = BENCHES.find((x) => x.name === r.benchmark);
    if (!b) { b = { name: r.benchmark, idx: [] }; BENCHES.push(b); }
    b.idx.push(i);
  });
  const manyBenches = BENCHES.length > 1;
  function benchRuns(name) { return runs.filter((r) => r.benchmark === name); }
  // A run's name where several benchmarks share a page ("oracle" alone would be ambiguous).
  function runName(r) { return manyBenches ? r.benchmark + ' · ' + r.label : r.label; }

  function metricNames(run) { return Object.keys(run.metrics.overall || {}); }
  // Counts (3DBench's n_tasks) read "8", not "8.00".
  function fmtM(run, m, v) { return (run.int_metrics || []).indexOf(m) >= 0 && typeof v === 'number' && Number.isInteger(v) ? String(v) : fmt(v); }
  function unitOf(run, m) { return ((run.metric_info || {})[m] || {}).unit || ''; }
  function groupKeys(run) { return Object.keys(run.metrics).filter((k) => k.indexOf('by_') === 0).map((k) => k.slice(3)); }
  // A group of fewer than 5 samples shows its count, no interval (as the console and the tables).
  const MIN_CI_SAMPLES = 5;
  function ciOf(run, key, value, m) {
    const counts = key === 'overall' ? run.counts : ((run.counts_by_group || {})['by_' + key] || {})[value];
    if (counts && counts.n_samples < MIN_CI_SAMPLES) return null;
    const block = key === 'overall' ? (run.ci.overall || {}) : ((run.ci['by_' + key] || {})[value] || {});
    return block ? block[m] || null : null;
  }

  /* ---------- header ---------- */
  function renderHeader() {
    $('sb-title').textContent = DATA.title;
    const meta = $('sb-meta');
    meta.textContent = '';
    for (const b of BENCHES) meta.appendChild(benchHeader(b));
    // Benchmarks resample different clusters (3DBench houses, RIO scans): say which uses which.
    const ciText = (ci) => Math.round((ci.level || 0.95) * 100) + '% ' + (ci.method || '') + ' over ' + (ci.cluster_key || 'scene_id') + ' (' + ci.n_resamples + ' resamples)';
    const kinds = new Map();
    for (const r of runs) { const t = ciText(r.ci); if (!kinds.has(t)) kinds.set(t, []); if (kinds.get(t).indexOf(r.benchmark) < 0) kinds.get(t).push(r.benchmark); }
    const intervals = kinds.size === 1 ? ciText(runs[0].ci) : Array.from(kinds, ([t, bs]) => bs.join(', ') + ': ' + t).join('; ');
    $('sb-generated').textContent = 'generated ' + DATA.generated + ' by scenebench ' + DATA.version + ' · intervals: ' + intervals;
  }

  function countsText(c) {
    const bad = ['missing', 'invalid', 'excluded'].filter((k) => c['n_' + k]).map((k) => c['n_' + k] + ' ' + k);
    return bad.length ? ' (' + bad.join(', ') + ')' : '';
  }

  // Each distinct message once, with the runs it applies to: five runs sharing three warnings
  // give three lines, not fifteen.
  function distinctMessages(rs, key) {
    const seen = new Map();
    for (const r of rs) for (const w of r[key] || []) { if (!seen.has(w)) seen.set(w, []); if (seen.get(w).indexOf(r.label) < 0) seen.get(w).push(r.label); }
    return Array.from(seen, ([text, labels]) => ({ text: text, labels: labels }));
  }

  // One line per benchmark: protocol, sample count and its runs (folder on hover), then its
  // distinct warnings and view notes.
  function benchHeader(b) {
    const rs = b.idx.map((i) => runs[i]);
    const protos = Array.from(new Set(rs.map((r) => r.protocol)));
    const sizes = Array.from(new Set(rs.map((r) => r.counts.n_samples)));
    const li = el('li', { cls: 'bench', 'data-benchmark': b.name }, el('b', { text: b.name }));
    if (protos.length === 1) li.appendChild(el('span', {}, ', protocol ', el('code', { text: protos[0] })));
    if (sizes.length === 1) li.appendChild(document.createTextNode(', ' + sizes[0] + ' samples'));
    li.appendChild(document.createTextNode(' — ' + rs.length + (rs.length === 1 ? ' run: ' : ' runs: ')));
    rs.forEach(function (r, k) {
      let txt = r.label;
      if (protos.length > 1) txt += ' [' + r.protocol + ']';
      if (sizes.length > 1) txt += ' (' + r.counts.n_samples + ' samples)';
      txt += countsText(r.counts);
      li.appendChild(el('span', { cls: 'run', title: r.path, text: txt }));
      if (k < rs.length - 1) li.appendChild(document.createTextNode(', '));
    });
    const sub = el('ul', {});
    const whom = (labels) => (labels.length === rs.length && rs.length > 1 ? 'all ' + b.name + ' runs' : labels.join(', '));
    for (const n of distinctMessages(rs, 'judge_notes')) sub.appendChild(el('li', { cls: 'note judge', text: whom(n.labels) + ': ' + n.text }));
    for (const w of distinctMessages(rs, 'warnings')) sub.appendChild(el('li', { cls: 'warn', text: whom(w.labels) + ': ' + w.text }));
    for (const w of distinctMessages(rs, 'judge_warnings')) sub.appendChild(el('li', { cls: 'warn', text: whom(w.labels) + ': ' + w.text }));
    for (const w of (DATA.bench_notes || {})[b.name] || []) sub.appendChild(el('li', { cls: 'warn identity', text: w }));
    for (const n of distinctMessages(rs, 'view_notes')) sub.appendChild(el('li', { cls: 'note', text: whom(n.labels) + ': ' + n.text }));
    if (sub.children.length) li.appendChild(sub);
    return li;
  }

  /* ---------- summary table ---------- */
  // Metrics reported in the blocks of one breakdown (3DBench reports different metrics per task).
  function blockMetrics(run, key) {
    const names = [];
    const blocks = key === 'overall' ? [run.metrics.overall || {}] : Object.values(run.metrics['by_' + key] || {});
    for (const b of blocks) for (const m of Object.keys(b)) if (names.indexOf(m) < 0) names.push(m);
    return names;
  }
  const TIDY_AFTER = 8;  // more distinct metrics than this in one breakdown: one row per (value, metric)

  function summaryTable(r, key) {
    const names = blockMetrics(r, key);
    const blocks = key === 'overall' ? { overall: r.metrics.overall || {} } : (r.metrics['by_' + key] || {});
    const counts = key === 'overall' ? { overall: r.counts } : ((r.counts_by_group || {})['by_' + key] || {});
    const tidy = key !== 'overall' && names.length > TIDY_AFTER;
    const table = el('table', { cls: 'summary', 'data-block': key });
    const head = el('tr', {}, el('th', { text: key === 'overall' ? (multi ? runName(r) : 'overall') : key }), el('th', { text: 'n' }));
    const cell = function (vals, v, m) {
      const ci = ciOf(r, key, v, m);
      return el('td', { cls: 'num' }, fmtM(r, m, vals[m]), ci ? el('span', { cls: 'ci', text: ' [' + fmt(ci[0]) + ', ' + fmt(ci[1]) + ']' }) : null);
    };
    const label = (m) => m + (unitOf(r, m) ? ' (' + unitOf(r, m) + ')' : '');
    if (tidy) { head.appendChild(el('th', { text: 'metric' })); head.appendChild(el('th', { text: 'value [CI]' })); }
    else for (const m of names) head.appendChild(el('th', { text: label(m), title: ((r.metric_info || {})[m] || {}).description || '' }));
    table.appendChild(el('thead', {}, head));
    const body = el('tbody');
    for (const v of Object.keys(blocks)) {
      const n = counts[v] ? counts[v].n_samples : '';
      const vals = blocks[v];
      if (tidy) {
        Object.keys(vals).forEach(function (m, i) {
          body.appendChild(el('tr', { cls: i === 0 ? 'first' : '' }, el('td', { text: i === 0 ? v : '' }), el('td', { cls: 'num', text: i === 0 ? String(n) : '' }),
            el('td', { text: label(m) }), cell(vals, key === 'overall' ? null : v, m)));
        });
      } else {
        const tr = el('tr', { cls: key === 'overall' ? 'overall' : '' }, el('td', { text: key === 'overall' ? 'overall' : v }), el('td', { cls: 'num', text: String(n) }));
        for (const m of names) tr.appendChild(cell(vals, key === 'overall' ? null : v, m));
        body.appendChild(tr);
      }
    }
    table.appendChild(body);
    return table;
  }

  // Runs of one benchmark side by side: one row per run, its overall metrics with intervals.
  // A breakdown the benchmark is judged by (RIO: moved / static instances) gets its own columns
  // next to "all": on RIO most instances do not move, so "all" alone rewards predicting no motion.
  const SPLIT = { rio: { key: 'motion', values: ['moved', 'static'] } };
  function overviewTable(rs) {
    const names = [];
    for (const r of rs) for (const m of blockMetrics(r, 'overall')) if (names.indexOf(m) < 0) names.push(m);
    const r0 = rs[0];
    const split = SPLIT[r0.benchmark];
    const parts = [{ key: 'overall', value: null, label: 'all' }];
    if (split) for (const v of split.values) if (rs.some((r) => ((r.metrics['by_' + split.key] || {})[v]))) parts.push({ key: split.key, value: v, label: v });
    const head = el('tr', {}, el('th', { text: 'run', rowspan: parts.length > 1 ? '2' : '1' }), el('th', { text: 'n', rowspan: parts.length > 1 ? '2' : '1' }));
    const sub = el('tr', {});
    for (const m of names) {
      const th = el('th', { text: m + (unitOf(r0, m) ? ' (' + unitOf(r0, m) + ')' : ''), title: ((r0.metric_info || {})[m] || {}).description || '' });
      if (parts.length > 1) { th.setAttribute('colspan', String(parts.length)); th.className = 'span'; }
      head.appendChild(th);
      if (parts.length > 1) for (const p of parts) sub.appendChild(el('th', { text: p.label, cls: 'part part-' + p.label, 'data-part': p.label }));
    }
    const body = el('tbody');
    for (const r of rs) {
      const tr = el('tr', { cls: (r.baseline ? 'identity' : '') + (r.oracle ? ' oracle' : '') }, el('td', { text: r.label, title: r.path }), el('td', { cls: 'num', text: String(r.counts.n_samples) }));
      for (const m of names) for (const p of parts) {
        const vals = p.key === 'overall' ? (r.metrics.overall || {}) : ((r.metrics['by_' + p.key] || {})[p.value] || {});
        const ci = ciOf(r, p.key, p.value, m);
        tr.appendChild(el('td', { cls: 'num part-' + p.label, 'data-metric': m, 'data-part': p.label }, fmtM(r, m, vals[m]), ci ? el('span', { cls: 'ci', text: ' [' + fmt(ci[0]) + ', ' + fmt(ci[1]) + ']' }) : null));
      }
      body.appendChild(tr);
    }
    const thead = el('thead', {}, head);
    if (parts.length > 1) thead.appendChild(sub);
    return el('table', { cls: 'overview', 'data-benchmark': r0.benchmark }, thead, body);
  }

  // Per benchmark: runs side by side, then each run's own tables folded away when there are
  // several (sixteen runs' per-task tables unfolded are metres of scrolling).
  function renderSummary() {
    const box = $('sb-summary');
    box.textContent = '';
    for (const b of BENCHES) {
      const rs = benchRuns(b.name);
      if (manyBenches) box.appendChild(el('h3', { cls: 'bench', text: b.name }));
      if (rs.length > 1 || SPLIT[b.name]) box.appendChild(overviewTable(rs));
      for (const r of rs) {
        const parent = rs.length > 1 ? box.appendChild(el('details', { cls: 'run-tables' }, el('summary', { text: 'all tables of ' + r.label }))) : box;
        if (multi && rs.length === 1) parent.appendChild(el('h3', { text: runName(r) }));
        parent.appendChild(summaryTable(r, 'overall'));
        for (const g of groupKeys(r)) parent.appendChild(summaryTable(r, g));
      }
    }
  }

  /* ---------- charts ---------- */
  const PRIMARY = '__primary__';
  // A task's bar shows its primary metric, or (a text task scored without a judge) the text
  // metric the report chose instead, named in the label.
  function primaryOf(run, key, value) {
    if (key !== 'task') return null;
    const c = (run.chart_primary || {})[value];
    if (c) return c.metric;
    const p = (run.extra || {}).primary_metric;
    return p ? p[value] : null;
  }
  function primaryLabel(run, value) {
    const c = (run.chart_primary || {})[value];
    return c && c.fallback ? c.metric + ' (no judge)' : primaryOf(run, 'task', value);
  }

  // Charts compare the runs of one benchmark (metrics differ between benchmarks); a selector
  // picks the benchmark when the report holds several.
  function setupChartBench() {
    const sel = $('sb-bench');
    sel.textContent = '';
    BENCHES.forEach((b, i) => sel.appendChild(option(b.name, b.name + ' (' + b.idx.length + (b.idx.length === 1 ? ' run)' : ' runs)'), i === 0)));
    sel.parentNode.style.display = manyBenches ? '' : 'none';
    state.bench = BENCHES[0].name;
  }

  function renderCharts() {
    const runs = benchRuns(state.bench);
    const multi = runs.length > 1;
    const r0 = runs[0];
    const sel = $('sb-metric');
    if (!sel.options.length) {
      const names = [];
      if ((r0.extra || {}).primary_metric) sel.appendChild(option(PRIMARY, 'primary metric of each task', true));
      for (const k of ['overall'].concat(groupKeys(r0))) for (const m of blockMetrics(r0, k)) if (names.indexOf(m) < 0) names.push(m);
      names.forEach((m, i) => sel.appendChild(option(m, m, i === 0 && !sel.options.length)));
    }
    const m = sel.value;
    const box = $('sb-charts');
    box.textContent = '';
    if (!m) return;
    const blank = () => runs.map((r) => ({ name: r.label, values: [], cis: [] }));
    const charts = [];  // {title, key, cats, metricOf(value)}
    const overallNames = blockMetrics(r0, 'overall');
    if (m === PRIMARY || overallNames.indexOf(m) >= 0) {
      const unit = unitOf(r0, m === PRIMARY ? overallNames[0] : m);
      const same = overallNames.filter((n) => unitOf(r0, n) === unit && runs.some((r) => isFinite((r.metrics.overall || {})[n] ?? NaN)));
      const s = blank();
      runs.forEach(function (r, j) { for (const n of same) { s[j].values.push((r.metrics.overall || {})[n]); s[j].cis.push(ciOf(r, 'overall', null, n)); } });
      // more than two run names overflow the chart's title; the legend below names them
      if (same.length) box.appendChild(el('div', { cls: 'chart-box', 'data-chart': 'overall' }, C.barChart({ categories: same, series: s, unit: unit, title: 'Overall' + (runs.length === 2 ? ' (' + runs.map((r) => r.label).join(' vs ') + ')' : '') })));
    }
    for (const g of groupKeys(r0)) {
      const cats = [];
      for (const r of runs) for (const v of Object.keys(r.metrics['by_' + g] || {})) if (cats.indexOf(v) < 0) cats.push(v);
      // which metric each category shows; categories without it are left out rather than drawn as n/a
      const pick = (v) => (m === PRIMARY ? (primaryOf(r0, g, v) || (overallNames.length ? overallNames[0] : null)) : m);
      const byUnit = {};
      for (const v of cats) {
        const mv = pick(v);
        if (!mv || !runs.some((r) => isFinite((((r.metrics['by_' + g] || {})[v] || {})[mv] ?? NaN)))) continue;
        const u = unitOf(r0, mv);
        (byUnit[u] = byUnit[u] || []).push(v);
      }
      for (const u of Object.keys(byUnit)) {
        const cs = byUnit[u], s = blank();
        runs.forEach(function (r, j) { for (const v of cs) { s[j].values.push(((r.metrics['by_' + g] || {})[v] || {})[pick(v)]); s[j].cis.push(ciOf(r, g, v, pick(v))); } });
        const counts = cs.map((v) => (((r0.counts_by_group || {})['by_' + g] || {})[v] || {}).n_samples);
        const labels = m === PRIMARY && primaryOf(r0, g, cs[0]) ? cs.map((v) => v + ' · ' + primaryLabel(r0, v)) : cs;
        const title = (m === PRIMARY ? 'primary metric' : m) + ' by ' + g + (Object.keys(byUnit).length > 1 ? ' (' + (u || 'no unit') + ')' : '');
        box.appendChild(el('div', { cls: 'chart-box', 'data-chart': 'by_' + g }, C.barChart({ categories: labels, series: s, unit: u, counts: counts, title: title })));
      }
    }
    if (!box.children.length) box.appendChild(el('p', { cls: 'note', text: 'no breakdown reports ' + m }));
    const legend = el('div', { cls: 'chart-legend' });
    if (multi) runs.forEach((r, j) => legend.appendChild(el('span', {}, el('span', { cls: 'swatch', style: 'background:' + C.PALETTE[j % C.PALETTE.length] }), r.label)));
    box.appendChild(legend);
  }

  function renderDistribution() {
    const r = runs[state.run];
    const sel = $('sb-field');
    sel.textContent = '';
    (r.fields || []).forEach((f, i) => sel.appendChild(option(f, f, f === state.field || (!state.field && i === 0))));
    state.field = sel.value;
    const box = $('sb-dist');
    box.textContent = '';
    const scored = r.samples.filter((s) => s.status !== 'excluded');
    const vals = scored.map((s) => s.values[state.field]);
    const st = {};
    for (const s of r.samples) st[s.status] = (st[s.status] || 0) + 1;
    box.appendChild(el('div', { cls: 'chart-box', 'data-chart': 'distribution' }, C.histogram({ values: vals, title: 'per-sample ' + (state.field || '') + ' (' + runName(r) + ')', xlabel: state.field })));
    box.appendChild(el('p', { cls: 'statuses', text: Object.keys(st).map((k) => k + ': ' + st[k]).join(' · ') }));
  }

  /* ---------- sample browser ---------- */
  function setupFilters() {
    const r = runs[state.run];
    const runSel = $('f-run');
    runSel.textContent = '';
    for (const b of BENCHES) {
      // one group per benchmark: the same model name ("oracle") appears under each
      const parent = manyBenches ? runSel.appendChild(el('optgroup', { label: b.name })) : runSel;
      for (const i of b.idx) parent.appendChild(option(String(i), runs[i].label, i === state.run));
    }
    runSel.parentNode.style.display = multi ? '' : 'none';
    const gbox = $('f-groups');
    gbox.textContent = '';
    for (const g of r.group_keys) {
      const values = Array.from(new Set(r.samples.map((s) => s.groups[g]).filter((v) => v !== undefined))).sort();
      const sel = el('select', { 'data-group': g }, option('', 'all'));
      values.forEach((v) => sel.appendChild(option(v, v)));
      sel.addEventListener('change', renderList);
      gbox.appendChild(el('label', {}, g + ' ', sel));
    }
    const fsel = $('f-field');
    fsel.textContent = '';
    (r.fields || []).forEach((f, i) => fsel.appendChild(option(f, f, i === 0)));
  }

  function filtered() {
    const r = runs[state.run];
    const field = $('f-field').value, status = $('f-status').value, text = $('f-text').value.trim().toLowerCase();
    const lo = parseFloat($('f-min').value), hi = parseFloat($('f-max').value);
    const groups = {};
    for (const s of document.querySelectorAll('#f-groups select')) if (s.value) groups[s.getAttribute('data-group')] = s.value;
    let out = r.samples.filter(function (s) {
      if (status && s.status !== status) return false;
      for (const g in groups) if (s.groups[g] !== groups[g]) return false;
      const v = s.values[field];
      if (!isNaN(lo) && !(v !== null && v >= lo)) return false;
      if (!isNaN(hi) && !(v !== null && v <= hi)) return false;
      if (text) {
        const hay = (s.id + ' ' + s.scene + ' ' + (s.detail.question || s.detail.description || s.detail.query || '')).toLowerCase();
        if (hay.indexOf(text) < 0) return false;
      }
      return true;
    });
    const sort = $('f-sort').value;
    if (sort !== 'order') {
      const sign = sort === 'asc' ? 1 : -1;
      out = out.slice().sort(function (a, b) {
        const x = a.values[field], y = b.values[field];
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return sign * (x - y);
      });
    }
    return out;
  }

  // Breakdown keys worth a column: one that just repeats the scene id (RIO's "scene") is left out.
  function listGroups(r) { return r.group_keys.filter((g) => !r.samples.every((s) => s.groups[g] === undefined || String(s.groups[g]) === s.scene)); }

  // Long ids (RIO: rescan uuid + instance) are cut in the middle: their start names the scan and
  // their end the instance, and wrapped whole they push status and score out of the list.
  function shortId(t) { t = String(t); return t.length > 24 ? t.slice(0, 8) + '…' + t.slice(-13) : t; }

  function renderList() {
    const r = runs[state.run];
    const field = $('f-field').value;
    const rows = filtered();
    const table = $('sb-samples');
    table.textContent = '';
    const head = el('tr', {}, el('th', { text: 'sample' }), el('th', { text: 'scene' }));
    const cols = listGroups(r);
    for (const g of cols) head.appendChild(el('th', { text: g }));
    head.appendChild(el('th', { text: 'status' }));
    head.appendChild(el('th', { text: field || 'score' }));
    head.appendChild(el('th', { text: '3D' }));
    table.appendChild(el('thead', {}, head));
    const body = el('tbody');
    rows.slice(0, state.limit).forEach(function (s) {
      const tr = el('tr', { cls: 'sample-row status-' + s.status, 'data-sample': s.id, tabindex: '0' },
        el('td', { cls: 'id', title: s.id, text: shortId(s.id) }), el('td', { cls: 'id', title: s.scene, text: shortId(s.scene) }));
      for (const g of cols) tr.appendChild(el('td', { text: s.groups[g] === undefined ? '' : String(s.groups[g]) }));
      tr.appendChild(el('td', { text: s.status }));
      tr.appendChild(el('td', { cls: 'num', text: fmt(s.values[field], 3) }));
      tr.appendChild(el('td', { text: s.view ? '●' : '' }));
      if (state.selected === s.id) tr.classList.add('selected');
      const open = () => showSample(s.id);
      tr.addEventListener('click', open);
      tr.addEventListener('keydown', (e) => { if (e.key === 'Enter') open(); });
      body.appendChild(tr);
    });
    table.appendChild(body);
    $('sb-count').textContent = 'showing ' + Math.min(rows.length, state.limit) + ' of ' + rows.length + ' matching (' + r.samples.length + ' in run)';
    $('sb-more').style.display = rows.length > state.limit ? '' : 'none';
  }

  const DETAIL_FIRST = ['question', 'description', 'query', 'answer', 'gt', 'ground_truth', 'options', 'choices', 'prediction', 'raw', 'text', 'parsed', 'parsed_prediction', 'reason'];

  // Pretty JSON that keeps short arrays (a box, a pose row, a waypoint) on one line.
  function compactJSON(v, pad) {
    const flat = JSON.stringify(v);
    if (v === null || typeof v !== 'object' || flat.length <= 72) return flat;
    const inner = pad + '  ';
    if (Array.isArray(v)) return '[\n' + v.map((x) => inner + compactJSON(x, inner)).join(',\n') + '\n' + pad + ']';
    return '{\n' + Object.keys(v).map((k) => inner + JSON.stringify(k) + ': ' + compactJSON(v[k], inner)).join(',\n') + '\n' + pad + '}';
  }

  // Counts and 0/1 indicators read as "5" and "1", not "5.0000".
  function fmtValue(v, d) { return typeof v === 'number' && Number.isInteger(v) ? String(v) : fmt(v, d); }

  function valueNode(v) {
    if (typeof v === 'string') return el('pre', { cls: 'text', text: v });
    if (typeof v === 'number' || typeof v === 'boolean' || v === null) return el('span', { text: String(v) });
    let s = JSON.stringify(v);
    if (s.length > 100) s = compactJSON(v, '');
    if (s.length > 4000) s = s.slice(0, 4000) + ' … (' + s.length + ' characters)';
    return el('pre', { cls: 'json', text: s });
  }

  function showSample(id) {
    const r = runs[state.run];
    const s = r.samples.find((x) => x.id === id);
    if (!s) return;
    state.selected = id;
    for (const tr of document.querySelectorAll('#sb-samples tr.sample-row')) tr.classList.toggle('selected', tr.getAttribute('data-sample') === id);
    const box = $('sb-detail');
    box.textContent = '';
    box.appendChild(el('h3', { text: s.id }));
    const dl = el('dl', { cls: 'detail' });
    const add = (k, node) => { dl.appendChild(el('dt', { text: k })); dl.appendChild(el('dd', { 'data-key': k }, node)); };
    add('scene', el('span', { text: s.scene }));
    add('status', el('span', { cls: 'status-' + s.status, text: s.status }));
    for (const g in s.groups) if (String(s.groups[g]) !== s.scene) add(g, el('span', { text: String(s.groups[g]) }));
    add('score', el('span', { text: Object.keys(s.values).map((k) => k + ' = ' + fmtValue(s.values[k], 4)).join(' · ') || '—' }));
    // a detail that repeats a breakdown value shown above (SURPRISE3D's question_type) is left out
    const keys = Object.keys(s.detail || {}).filter((k) => !(k in s.groups && String(s.groups[k]) === String(s.detail[k])));
    const ordered = DETAIL_FIRST.filter((k) => keys.indexOf(k) >= 0).concat(keys.filter((k) => DETAIL_FIRST.indexOf(k) < 0));
    for (const k of ordered) add(k, valueNode(s.detail[k]));
    box.appendChild(dl);
    if (benchRuns(r.benchmark).length > 1) {
      const t = el('table', { cls: 'others' }, el('tr', {}, el('th', { text: 'run' }), el('th', { text: 'status' }), el('th', { text: 'values' })));
      for (const o of benchRuns(r.benchmark)) {
        const x = o.index[id];
        const os = x === undefined ? null : o.samples[x];
        t.appendChild(el('tr', {}, el('td', { text: o.label }), el('td', { text: os ? os.status : 'not in run' }),
          el('td', { text: os ? Object.keys(os.values).map((k) => k + '=' + fmtValue(os.values[k], 3)).join(' ') : '' })));
      }
      box.appendChild(el('h4', { text: 'this sample in every run' }));
      box.appendChild(t);
    }
    if (s.thumbs && s.thumbs.length) {  // the views a vision model saw, with its marks
      const tb = el('div', { cls: 'thumbs' });
      for (const h of s.thumbs) if ((DATA.thumbs || {})[h]) tb.appendChild(el('img', { src: DATA.thumbs[h], alt: 'a view the model saw', loading: 'lazy' }));
      box.appendChild(el('h4', { text: 'views the model saw' }));
      box.appendChild(tb);
    }
    const view = ((DATA.views || {})[String(state.run)] || {})[id];
    const vbox = el('div', { cls: 'viewer' });
    box.appendChild(vbox);
    if (view) {
      const canvas = el('canvas', { id: 'sb-canvas', width: '760', height: '480' });
      const legend = el('div', { cls: 'legend' });
      if (view.note) vbox.appendChild(el('p', { cls: 'note', text: view.note }));
      vbox.appendChild(canvas);
      vbox.appendChild(legend);
      state.viewer = new V.PointViewer(canvas, legend, DATA.scenes[view.scene] || null, view);
    } else {
      // Say why: a capped report (the demo embeds 20 views per run) otherwise looks broken.
      const nViews = r.samples.filter((x) => x.view).length;
      const why = r.view_notes && r.view_notes.length ? r.view_notes.join('; ')
        : nViews ? 'no 3D view for this sample: the report embeds views for ' + nViews + ' of ' + r.samples.length +
          ' samples of this run (the worst-scored half and a seeded draw of the rest; raise with scenebench report --max-views)'
        : 'no 3D view for this sample';
      vbox.appendChild(el('p', { cls: 'note', text: why }));
    }
    box.scrollIntoView({ block: 'nearest' });
  }

  function init() {
    V.scenes = DATA.scenes || {};
    runs.forEach(function (r) { r.index = {}; r.samples.forEach((s, i) => { r.index[s.id] = i; }); });
    renderHeader();
    renderSummary();
    setupChartBench();
    renderCharts();
    setupFilters();
    renderDistribution();
    renderList();
    $('sb-metric').addEventListener('change', renderCharts);
    $('sb-bench').addEventListener('change', function () { state.bench = $('sb-bench').value; $('sb-metric').textContent = ''; renderCharts(); });
    $('sb-field').addEventListener('change', function () { state.field = $('sb-field').value; renderDistribution(); });
    $('f-run').addEventListener('change', function () { state.run = +$('f-run').value; state.selected = null; $('sb-detail').textContent = ''; setupFilters(); renderDistribution(); renderList(); });
    for (const id of ['f-status', 'f-field', 'f-sort']) $(id).addEventListener('change', renderList);
    for (const id of ['f-min', 'f-max', 'f-text']) $(id).addEventListener('input', renderList);
    $('sb-more').addEventListener('click', function () { state.limit += 500; renderList(); });
    document.body.setAttribute('data-ready', '1');
  }
  init();
})();
