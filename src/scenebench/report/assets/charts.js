/* scenebench charts: small SVG bar charts with CI whiskers and histograms. All labels are set with
   textContent, never parsed as HTML. */
(function (global) {
  'use strict';
  const NS = 'http://www.w3.org/2000/svg';
  const PALETTE = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#000000'];

  function svg(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fmt(v, d) { return v === null || v === undefined || !isFinite(v) ? 'n/a' : Number(v).toFixed(d === undefined ? 2 : d); }

  function niceMax(v) {
    if (!(v > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
    return 10 * p;
  }

  /* Horizontal grouped bars: one row per category, one bar per series, whiskers for CIs.
     opts: {categories, series: [{name, values, cis}], unit, title, counts} */
  function barChart(opts) {
    const cats = opts.categories, series = opts.series;
    const longest = Math.max.apply(null, cats.map((c, i) => (String(c) + (opts.counts && opts.counts[i] !== undefined ? ' (n=' + opts.counts[i] + ')' : '')).length).concat([4]));
    const left = Math.min(360, Math.max(90, Math.round(longest * 6.2) + 12));  // room for the longest label (11px font)
    const rowH = Math.max(18, 12 * series.length + 8), right = 70, top = 28, W = 550 + left;
    const H = top + cats.length * rowH + 34;
    let hi = 0, lo = 0;
    for (const s of series) for (let i = 0; i < cats.length; i++) {
      const v = s.values[i], ci = s.cis[i];
      if (v !== null && isFinite(v)) { hi = Math.max(hi, v); lo = Math.min(lo, v); }
      if (ci) { hi = Math.max(hi, ci[1]); lo = Math.min(lo, ci[0]); }
    }
    if (opts.unit === '%' && hi <= 100 && lo >= 0) hi = 100; else hi = niceMax(hi);
    lo = lo < 0 ? -niceMax(-lo) : 0;
    const x = (v) => left + (v - lo) / (hi - lo) * (W - left - right);
    const root = svg('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, class: 'chart', role: 'img' });
    root.appendChild(svg('title', {}, opts.title || ''));
    root.appendChild(svg('text', { x: 4, y: 16, class: 'chart-title' }, opts.title || ''));
    for (let t = 0; t <= 4; t++) {
      const v = lo + (hi - lo) * t / 4, xx = x(v);
      root.appendChild(svg('line', { x1: xx, x2: xx, y1: top - 4, y2: H - 30, class: 'grid' }));
      root.appendChild(svg('text', { x: xx, y: H - 16, 'text-anchor': 'middle', class: 'tick' }, fmt(v, hi - lo >= 10 ? 0 : 2) + (opts.unit === '%' ? '%' : '')));
    }
    cats.forEach(function (c, i) {
      const y0 = top + i * rowH;
      const label = c + (opts.counts && opts.counts[i] !== undefined ? ' (n=' + opts.counts[i] + ')' : '');
      root.appendChild(svg('text', { x: left - 6, y: y0 + rowH / 2 + 4, 'text-anchor': 'end', class: 'cat' }, label));
      const bh = (rowH - 6) / series.length;
      series.forEach(function (s, j) {
        const v = s.values[i], yb = y0 + 3 + j * bh;
        const color = s.color || PALETTE[j % PALETTE.length];
        if (v === null || !isFinite(v)) {
          root.appendChild(svg('text', { x: x(lo) + 4, y: yb + bh / 2 + 4, class: 'na' }, 'n/a'));
          return;
        }
        const r = svg('rect', { x: Math.min(x(0), x(v)), y: yb, width: Math.max(1, Math.abs(x(v) - x(0))), height: Math.max(2, bh - 2), fill: color, class: 'bar' });
        r.appendChild(svg('title', {}, s.name + ' · ' + c + ': ' + fmt(v) + (s.cis[i] ? ' [' + fmt(s.cis[i][0]) + ', ' + fmt(s.cis[i][1]) + ']' : '')));
        root.appendChild(r);
        const ci = s.cis[i];
        if (ci) {
          const ym = yb + (bh - 2) / 2;
          root.appendChild(svg('line', { x1: x(ci[0]), x2: x(ci[1]), y1: ym, y2: ym, class: 'whisker' }));
          root.appendChild(svg('line', { x1: x(ci[0]), x2: x(ci[0]), y1: ym - 3, y2: ym + 3, class: 'whisker' }));
          root.appendChild(svg('line', { x1: x(ci[1]), x2: x(ci[1]), y1: ym - 3, y2: ym + 3, class: 'whisker' }));
        }
        root.appendChild(svg('text', { x: W - right + 4, y: yb + bh / 2 + 3, class: 'val' }, fmt(v, opts.unit === '%' ? 1 : 2)));
      });
    });
    return root;
  }

  /* Histogram of per-sample values; opts: {values, title, xlabel, bins} */
  function histogram(opts) {
    const vals = opts.values.filter((v) => v !== null && isFinite(v));
    const W = 720, H = 230, left = 50, right = 20, top = 28, bottom = 40;
    const root = svg('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, class: 'chart', role: 'img' });
    root.appendChild(svg('text', { x: 4, y: 16, class: 'chart-title' }, opts.title || ''));
    if (!vals.length) { root.appendChild(svg('text', { x: left, y: H / 2, class: 'na' }, 'no scored samples')); return root; }
    let lo = Math.min.apply(null, vals), hi = Math.max.apply(null, vals);
    const distinct = new Set(vals);
    let bins = opts.bins || 20, edges = [];
    if (distinct.size <= 12 && vals.every((v) => Number.isInteger(v * 1000))) {  // few distinct values: one bar each
      const ks = Array.from(distinct).sort((a, b) => a - b);
      bins = ks.length;
      edges = ks;
    }
    if (hi === lo) { hi = lo + 1; }
    const counts = new Array(bins).fill(0);
    for (const v of vals) {
      let b = edges.length ? edges.indexOf(v) : Math.min(bins - 1, Math.floor((v - lo) / (hi - lo) * bins));
      counts[b]++;
    }
    const cmax = Math.max.apply(null, counts);
    const bw = (W - left - right) / bins;
    const y = (c) => H - bottom - c / cmax * (H - top - bottom);
    for (let t = 0; t <= 4; t++) {
      const c = Math.round(cmax * t / 4);
      root.appendChild(svg('line', { x1: left, x2: W - right, y1: y(c), y2: y(c), class: 'grid' }));
      root.appendChild(svg('text', { x: left - 6, y: y(c) + 4, 'text-anchor': 'end', class: 'tick' }, String(c)));
    }
    counts.forEach(function (c, i) {
      const r = svg('rect', { x: left + i * bw + 1, y: y(c), width: Math.max(1, bw - 2), height: H - bottom - y(c), fill: PALETTE[0], class: 'bar' });
      const from = edges.length ? edges[i] : lo + (hi - lo) * i / bins, to = edges.length ? edges[i] : lo + (hi - lo) * (i + 1) / bins;
      r.appendChild(svg('title', {}, (edges.length ? (Number.isInteger(from) ? String(from) : fmt(from)) : fmt(from) + ' – ' + fmt(to)) + ': ' + c + ' samples'));
      root.appendChild(r);
      if (edges.length) root.appendChild(svg('text', { x: left + (i + 0.5) * bw, y: H - bottom + 14, 'text-anchor': 'middle', class: 'tick' }, Number.isInteger(edges[i]) ? String(edges[i]) : fmt(edges[i], 2)));
    });
    if (!edges.length) for (let t = 0; t <= 4; t++) {
      const v = lo + (hi - lo) * t / 4;
      root.appendChild(svg('text', { x: left + (W - left - right) * t / 4, y: H - bottom + 14, 'text-anchor': 'middle', class: 'tick' }, fmt(v, 2)));
    }
    root.appendChild(svg('text', { x: (W + left) / 2, y: H - 6, 'text-anchor': 'middle', class: 'tick' }, opts.xlabel || ''));
    return root;
  }

  global.ScenebenchCharts = { barChart: barChart, histogram: histogram, PALETTE: PALETTE, fmt: fmt };
})(window);
