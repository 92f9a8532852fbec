/* scenebench 3D point viewer: a software point rasteriser on a 2D canvas (no WebGL, no GPU needed,
   identical pixels in every browser). Drag to orbit, shift-drag or right-drag to pan, wheel to zoom,
   double-click to reset. Clouds arrive as uint16-quantised base64 (see report/viewer.py).
   It opens top-down with the scene cut CLIP_HEIGHT metres above its floor (walls stop there, the
   ceiling is gone), so objects are not hidden; "full scene" shows every point from an oblique
   angle. Overlays (ground truth, prediction, anchors) are never cut, and are drawn with a black
   outline so they stand out on dark and light scenes alike. */
(function (global) {
  'use strict';

  function b64bytes(s) {
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  // Data with y up (3DBench / AI2-THOR) is turned into the viewer's z-up frame, keeping handedness.
  function toZUp(up, x, y, z) { return up === 'y' ? [x, -z, y] : [x, y, z]; }

  function decodeCloud(c, up, fallback) {
    const n = c.n;
    const q = new Uint16Array(b64bytes(c.q).buffer);
    const pos = new Float32Array(n * 3);
    const span = [c.hi[0] - c.lo[0], c.hi[1] - c.lo[1], c.hi[2] - c.lo[2]];
    for (let i = 0; i < n; i++) {
      const p = toZUp(up,
        c.lo[0] + q[3 * i] / 65535 * span[0],
        c.lo[1] + q[3 * i + 1] / 65535 * span[1],
        c.lo[2] + q[3 * i + 2] / 65535 * span[2]);
      pos[3 * i] = p[0]; pos[3 * i + 1] = p[1]; pos[3 * i + 2] = p[2];
    }
    let rgb;
    if (c.rgb) rgb = b64bytes(c.rgb);
    else {
      const col = c.color || fallback || [160, 160, 160];
      rgb = new Uint8Array(n * 3);
      for (let i = 0; i < n; i++) { rgb[3 * i] = col[0]; rgb[3 * i + 1] = col[1]; rgb[3 * i + 2] = col[2]; }
    }
    return { n: n, pos: pos, rgb: rgb, total: c.total };
  }

  // Segments (pairs of 3D points) of a box, an oriented box or a path layer.
  function layerSegments(layer, up) {
    const P = (p) => toZUp(up, p[0], p[1], p[2]);
    const segs = [];
    let corners = null;
    if (layer.kind === 'box') {
      const b = layer.minmax;
      corners = [];
      for (let i = 0; i < 8; i++) corners.push([i & 1 ? b[3] : b[0], i & 2 ? b[4] : b[1], i & 4 ? b[5] : b[2]]);
    } else if (layer.kind === 'obb') {
      corners = layer.corners;
    }
    if (corners) {
      const c = corners.map(P);
      for (let i = 0; i < 8; i++) for (let k = 0; k < 3; k++) {
        const j = i | (1 << k);
        if (j !== i) segs.push([c[i].slice(), c[j].slice()]);  // own copies: a shifted layer moves each point once
      }
    } else if (layer.kind === 'path') {
      const pts = layer.points.map(P);
      for (let i = 0; i + 1 < pts.length; i++) segs.push([pts[i].slice(), pts[i + 1].slice()]);
      if (pts.length === 1) segs.push([pts[0], pts[0]]);
    }
    return segs;
  }

  const CLIP_HEIGHT = 1.6;  // metres above the floor (2nd percentile of the scene's heights)
  const HALO = [0, 0, 0];

  function floorOf(cloud) {
    const n = cloud.n;
    if (!n) return 0;
    const step = Math.max(1, Math.floor(n / 4000)), zs = [];
    for (let i = 0; i < n; i += step) zs.push(cloud.pos[3 * i + 2]);
    zs.sort((a, b) => a - b);
    return zs[Math.floor(zs.length * 0.02)];
  }

  function PointViewer(canvas, legend, scene, view) {
    this.canvas = canvas;
    this.full = false;  // false: top-down, walls and ceiling cut; true: every point, oblique
    this.ctx = canvas.getContext('2d');
    this.up = scene ? scene.up : 'z';
    this.items = [];  // {label, color, visible, cloud?, segs?, kind}
    if (scene) {
      const dim = view && view.layers && view.layers.length > 0;
      const cloud = decodeCloud(scene.cloud, this.up);
      this.clipZ = floorOf(cloud) + CLIP_HEIGHT;
      this.items.push({ label: (view && view.scene_label || 'scene') + ' (' + scene.cloud.n + ' of ' + scene.cloud.total + ' points)', kind: 'scene',
                        visible: true, cloud: cloud, dim: dim, color: [150, 150, 150], crop: cropOf(view && view.crop, this.up, null) });
    }
    for (const extra of (view && view.scenes) || []) {  // a second scan beside the first (RIO: the reference)
      const sc = DATA_SCENES()[extra.scene];
      if (!sc) continue;
      const cloud = decodeCloud(sc.cloud, sc.up || this.up);
      if (extra.offset) for (let i = 0; i < cloud.n; i++) for (let k = 0; k < 3; k++) cloud.pos[3 * i + k] += extra.offset[k];
      this.items.push({ label: extra.label + ' (' + sc.cloud.n + ' of ' + sc.cloud.total + ' points)', kind: 'scene', visible: true, cloud: cloud,
                        dim: true, color: [150, 150, 150], crop: cropOf(extra.crop, sc.up || this.up, extra.offset), side: true });
    }
    for (const layer of (view && view.layers) || []) {
      const item = { label: layer.label, kind: layer.kind, visible: true, color: layer.color, dashed: !!layer.dashed, text: layer.text || null, group: layer.group || null };
      if (layer.kind === 'cloud') item.cloud = decodeCloud(layer.cloud, this.up, layer.color);
      else item.segs = layerSegments(layer, this.up);
      if (layer.offset) { shift(item, layer.offset); item.side = true; }
      if (layer.kind === 'path' && !layer.nodots) item.dots = true;
      this.items.push(item);
    }
    this.fit();
    this.buildLegend(legend);
    this.bind();
    this.render();
  }

  // A crop box [x0, y0, z0, x1, y1, z1] (data frame) as viewer-frame bounds, moved by an offset:
  // only the scene points inside are drawn (RIO: the neighbourhood of the object in each scan).
  function cropOf(b, up, offset) {
    if (!b) return null;
    const a = toZUp(up, b[0], b[1], b[2]), c = toZUp(up, b[3], b[4], b[5]), o = offset || [0, 0, 0];
    return [Math.min(a[0], c[0]) + o[0], Math.min(a[1], c[1]) + o[1], Math.min(a[2], c[2]) + o[2],
            Math.max(a[0], c[0]) + o[0], Math.max(a[1], c[1]) + o[1], Math.max(a[2], c[2]) + o[2]];
  }

  function shift(item, o) {
    if (item.cloud) for (let i = 0; i < item.cloud.n; i++) for (let k = 0; k < 3; k++) item.cloud.pos[3 * i + k] += o[k];
    if (item.segs) for (const sg of item.segs) for (const p of sg) for (let k = 0; k < 3; k++) p[k] += o[k];
  }
  function DATA_SCENES() { return (global.ScenebenchViewer && global.ScenebenchViewer.scenes) || {}; }

  PointViewer.prototype.fit = function () {
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    const add = (x, y, z) => { const p = [x, y, z]; for (let k = 0; k < 3; k++) { if (p[k] < lo[k]) lo[k] = p[k]; if (p[k] > hi[k]) hi[k] = p[k]; } };
    for (const it of this.items) {
      if (it.side && this.full) continue;
      if (it.crop && !this.full) { add(it.crop[0], it.crop[1], it.crop[2]); add(it.crop[3], it.crop[4], it.crop[5]); continue; }
      if (it.cloud) for (let i = 0; i < it.cloud.n; i++) add(it.cloud.pos[3 * i], it.cloud.pos[3 * i + 1], it.cloud.pos[3 * i + 2]);
      if (it.segs) for (const s of it.segs) { add(s[0][0], s[0][1], s[0][2]); add(s[1][0], s[1][1], s[1][2]); }
    }
    if (!isFinite(lo[0])) { lo[0] = lo[1] = lo[2] = -1; hi[0] = hi[1] = hi[2] = 1; }
    this.target = [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2];
    const r = Math.max(0.5, Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) / 2);
    this.fov = 50 * Math.PI / 180;
    this.dist = r / Math.sin(this.fov / 2) * 0.9;
    if (this.full) { this.yaw = -Math.PI / 3; this.pitch = Math.PI / 5; }
    else {  // top-down, x right, y up: frame the floor plan, not the 3D diagonal
      this.yaw = -Math.PI / 2; this.pitch = 1.55;
      const aspect = this.canvas.width / this.canvas.height;
      const half = Math.max((hi[1] - lo[1]) / 2, (hi[0] - lo[0]) / 2 / aspect, 0.5) * 1.08;
      this.dist = half / Math.tan(this.fov / 2) + (hi[2] - lo[2]) / 2;
    }
  };

  PointViewer.prototype.buildLegend = function (legend) {
    if (!legend) return;
    legend.textContent = '';
    const self = this;
    const groups = {};
    this.items.forEach(function (it) {
      if (it.group && groups[it.group]) { groups[it.group].push(it); return; }  // one legend entry per group (all anchors)
      if (it.group) groups[it.group] = [it];
      const lab = document.createElement('label');
      const cb = document.createElement('input');
      cb.type = 'checkbox'; cb.checked = true;
      cb.addEventListener('change', function () { for (const x of it.group ? groups[it.group] : [it]) x.visible = cb.checked; self.render(); });
      const sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.background = 'rgb(' + it.color.join(',') + ')';
      lab.appendChild(cb); lab.appendChild(sw);
      lab.appendChild(document.createTextNode(it.group || it.label));
      if (it.group) lab.setAttribute('data-group', it.group);
      legend.appendChild(lab);
    });
    const full = document.createElement('label');
    full.className = 'full-scene';
    const fcb = document.createElement('input');
    fcb.type = 'checkbox'; fcb.checked = this.full; fcb.className = 'full-toggle';
    fcb.addEventListener('change', function () { self.full = fcb.checked; self.fit(); self.render(); });
    full.appendChild(fcb);
    const sides = this.items.some((it) => it.side);
    full.appendChild(document.createTextNode(sides ? 'full scene (walls, ceiling, the whole rescan alone; oblique view)' : 'full scene (walls, ceiling; oblique view)'));
    legend.appendChild(full);
    const hint = document.createElement('span');
    hint.className = 'hint';
    hint.textContent = 'drag: orbit · shift/right-drag: pan · wheel: zoom · double-click: reset';
    legend.appendChild(hint);
  };

  PointViewer.prototype.bind = function () {
    const c = this.canvas, self = this;
    let last = null, pan = false;
    c.addEventListener('contextmenu', (e) => e.preventDefault());
    c.addEventListener('pointerdown', function (e) { last = [e.clientX, e.clientY]; pan = e.shiftKey || e.button === 2; c.setPointerCapture(e.pointerId); });
    c.addEventListener('pointerup', function () { last = null; });
    c.addEventListener('pointermove', function (e) {
      if (!last) return;
      const dx = e.clientX - last[0], dy = e.clientY - last[1];
      last = [e.clientX, e.clientY];
      if (pan) {
        const cam = self.camera(), k = self.dist * 0.0015;
        for (let i = 0; i < 3; i++) self.target[i] += -cam.r[i] * dx * k + cam.u[i] * dy * k;
      } else {
        self.yaw -= dx * 0.01;
        self.pitch = Math.max(-1.55, Math.min(1.55, self.pitch + dy * 0.01));
      }
      self.schedule();
    });
    c.addEventListener('wheel', function (e) { e.preventDefault(); self.dist *= Math.exp(e.deltaY * 0.001); self.schedule(); }, { passive: false });
    c.addEventListener('dblclick', function () { self.fit(); self.schedule(); });
  };

  PointViewer.prototype.schedule = function () {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.render(); });
  };

  PointViewer.prototype.camera = function () {
    const cp = Math.cos(this.pitch);
    const eye = [this.target[0] + this.dist * cp * Math.cos(this.yaw), this.target[1] + this.dist * cp * Math.sin(this.yaw), this.target[2] + this.dist * Math.sin(this.pitch)];
    const f = [this.target[0] - eye[0], this.target[1] - eye[1], this.target[2] - eye[2]];
    const fl = Math.hypot(f[0], f[1], f[2]); f[0] /= fl; f[1] /= fl; f[2] /= fl;
    let r = [f[1], -f[0], 0];  // f x z-up
    const rl = Math.hypot(r[0], r[1]) || 1; r = [r[0] / rl, r[1] / rl, 0];
    const u = [r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0]];
    return { eye: eye, f: f, r: r, u: u };
  };

  PointViewer.prototype.render = function () {
    const W = this.canvas.width, H = this.canvas.height, ctx = this.ctx;
    const img = ctx.createImageData(W, H);
    const px = new Uint32Array(img.data.buffer);
    px.fill(0xff1e1a17);  // opaque background (ABGR little-endian): #171a1e
    const depth = new Float32Array(W * H).fill(Infinity);
    const cam = this.camera(), focal = (H / 2) / Math.tan(this.fov / 2);
    const e = cam.eye, r = cam.r, u = cam.u, f = cam.f, near = 0.01;
    let drawn = 0;
    const clip = this.full ? Infinity : this.clipZ;
    const halo = (0xff000000 | (HALO[2] << 16) | (HALO[1] << 8) | HALO[0]) >>> 0;
    // pass 0: scenes; pass 1: a black outline under every overlay point; pass 2: overlay points
    for (let pass = 0; pass < 3; pass++) for (const it of this.items) {
      if (!it.visible || !it.cloud || (it.kind === 'scene') !== (pass === 0) || (it.side && this.full)) continue;
      const pos = it.cloud.pos, rgb = it.cloud.rgb, n = it.cloud.n;
      const scene = it.kind === 'scene';
      const size = scene ? 2 : (pass === 1 ? 5 : 3), off = pass === 1 ? -1 : 0, bias = scene ? 1 : (pass === 1 ? 0.975 : 0.97);
      for (let i = 0; i < n; i++) {
        if (scene && pos[3 * i + 2] > clip) continue;
        const cb = this.full ? null : it.crop;
        if (cb && (pos[3 * i] < cb[0] || pos[3 * i] > cb[3] || pos[3 * i + 1] < cb[1] || pos[3 * i + 1] > cb[4])) continue;
        const dx = pos[3 * i] - e[0], dy = pos[3 * i + 1] - e[1], dz = pos[3 * i + 2] - e[2];
        const zc = dx * f[0] + dy * f[1] + dz * f[2];
        if (zc < near) continue;
        const sx = Math.round(W / 2 + focal * (dx * r[0] + dy * r[1] + dz * r[2]) / zc) + off;
        const sy = Math.round(H / 2 - focal * (dx * u[0] + dy * u[1] + dz * u[2]) / zc) + off;
        if (sx < 0 || sy < 0 || sx > W - size || sy > H - size) continue;
        let col = halo;
        if (pass !== 1) {
          let R = rgb[3 * i], G = rgb[3 * i + 1], B = rgb[3 * i + 2];
          if (it.dim) { R = (R * 0.5 + 30) | 0; G = (G * 0.5 + 30) | 0; B = (B * 0.5 + 30) | 0; }  // scene recedes behind overlays
          col = (0xff000000 | (B << 16) | (G << 8) | R) >>> 0;
        }
        const zt = zc * bias;
        for (let oy = 0; oy < size; oy++) for (let ox = 0; ox < size; ox++) {
          const k = (sy + oy) * W + sx + ox;
          if (zt < depth[k]) { depth[k] = zt; px[k] = col; }
        }
        if (pass !== 1) drawn++;
      }
    }
    ctx.putImageData(img, 0, 0);
    const proj = (p) => {
      const dx = p[0] - e[0], dy = p[1] - e[1], dz = p[2] - e[2];
      const zc = dx * f[0] + dy * f[1] + dz * f[2];
      if (zc < near) return null;
      return [W / 2 + focal * (dx * r[0] + dy * r[1] + dz * r[2]) / zc, H / 2 - focal * (dx * u[0] + dy * u[1] + dz * u[2]) / zc];
    };
    const labels = [];
    for (const it of this.items) {
      if (!it.visible || !it.segs || (it.side && this.full)) continue;
      ctx.setLineDash(it.dashed ? [7, 5] : []);
      ctx.beginPath();
      let top = null;
      for (const s of it.segs) {
        const a = proj(s[0]), b = proj(s[1]);
        if (!a || !b) continue;
        ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]);
        for (const q of [a, b]) if (!top || q[1] < top[1]) top = q;
        drawn++;
      }
      ctx.lineWidth = 4; ctx.strokeStyle = 'rgb(' + HALO.join(',') + ')';  // outline: visible on light scenes too
      ctx.stroke();
      ctx.lineWidth = 2; ctx.strokeStyle = ctx.fillStyle = 'rgb(' + it.color.join(',') + ')';
      ctx.stroke();
      if (it.text && top) labels.push([it, top]);
      if (it.dots) for (const s of it.segs) for (const p of s) {
        const a = proj(p);
        if (a) { ctx.beginPath(); ctx.arc(a[0], a[1], 3, 0, 2 * Math.PI); ctx.fill(); }
      }
    }
    // labels last, on a dark plate, so no point or line covers them
    ctx.setLineDash([]);
    ctx.font = '600 12px system-ui, sans-serif';
    ctx.textBaseline = 'bottom';
    const placed = [];
    for (const [it, q] of labels) {
      const w = ctx.measureText(it.text).width + 8, x = Math.max(0, Math.min(W - w, q[0] - w / 2));
      let y = Math.max(16, q[1] - 3);
      // a label never hides another: move it up past any placed label it would overlap
      for (let tries = 0; tries < 20 && placed.some((b) => x < b[0] + b[2] && b[0] < x + w && y - 16 < b[1] && b[1] - 16 < y); tries++) y = y - 17 < 16 ? y + 40 : y - 17;
      placed.push([x, y, w]);
      ctx.fillStyle = 'rgba(0,0,0,0.78)';
      ctx.fillRect(x, y - 16, w, 16);
      ctx.fillStyle = 'rgb(' + it.color.join(',') + ')';
      ctx.fillText(it.text, x + 4, y - 2);
    }
    this.canvas.dataset.drawn = String(drawn);
    this.canvas.dataset.labels = labels.map((l) => l[0].text).join('|');
    this.canvas.dataset.mode = this.full ? 'full' : 'top';
  };

  global.ScenebenchViewer = { PointViewer: PointViewer, decodeCloud: decodeCloud, scenes: null, CLIP_HEIGHT: CLIP_HEIGHT };
})(window);
