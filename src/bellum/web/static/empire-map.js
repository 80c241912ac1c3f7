// bellum planning table: the Empire map (loaded before bellum.js, which drives it).
"use strict";

// What the browser tests and docs/web.md read: when the map was first drawn (ms since
// the page was asked for), from a click on the map to its first odds, and from each
// change of a plan's controls to the odds shown for it.
const timings = (window.bellumTimings = { firstMap: 0, clickToOdds: [], odds: [] });

// ---------------------------------------------------------------- the Empire map
//
// Drawn on a canvas from the compact data the page carries (hexmap.empire_data): only
// the sectors on screen are drawn, so a 256 x 128 world pans as fast as a small one,
// and the world wraps round its edges as Empire's does.  Everything drawn over the
// sectors is a layer (addLayer): the picked sector, the keyboard cursor and the plan's
// sources and arrows are three; fog shading or a threat heat map are more of the same.

const SQ3 = Math.sqrt(3);
const DX = SQ3 / 2, DY = 1.5;  // one step of x, one row, in hex radii (pointy-topped)
const RELATION_FILL = {
  own: "#56b4e9", allied: "#009e73", war: "#e69f00", hostile: "#d55e00",
  neutral: "#cc79a7", friendly: "#cc79a7", none: "#ece6d6",
};
const SEA_FILL = "#d4e6f1", BACKGROUND = "#dfe8ef";
const RELATION_PATTERN = { allied: "dots", war: "stripes", hostile: "cross", neutral: "lines", friendly: "lines" };
// A player's view: what the country saw before the last update, and what it never saw, veiled.
const SEEN_VEIL = { stale: "rgba(255,255,255,0.35)", unknown: "rgba(255,255,255,0.65)" };
const SEEN_TEXT = { stale: " (seen before the last update)", unknown: " (never seen: unknown)" };
// Where others' ships and land units sit in their sector, in hex radii (up to four).
const MARKER_SLOTS = [[-0.52, -0.2], [0.52, -0.2], [-0.52, 0.25], [0.52, 0.25]];
const CORNERS = [...Array(6)].map((_, k) => [Math.cos(Math.PI / 6 + k * Math.PI / 3), Math.sin(Math.PI / 6 + k * Math.PI / 3)]);
const mod = (a, n) => ((a % n) + n) % n;

function patternCanvas(kind) {
  const c = document.createElement("canvas");
  c.width = c.height = 6;
  const g = c.getContext("2d");
  g.fillStyle = "rgba(0,0,0,.38)";
  g.strokeStyle = "rgba(0,0,0,.33)";
  g.lineWidth = 1.3;
  if (kind === "dots") { g.beginPath(); g.arc(3, 3, 1.1, 0, 2 * Math.PI); g.fill(); }
  if (kind === "lines") g.fillRect(0, 0, 6, 1.4);
  if (kind === "stripes" || kind === "cross") {
    g.beginPath(); g.moveTo(-1, 7); g.lineTo(7, -1); g.moveTo(-1, 1); g.lineTo(1, -1); g.moveTo(5, 7); g.lineTo(7, 5); g.stroke();
  }
  if (kind === "cross") { g.beginPath(); g.moveTo(-1, -1); g.lineTo(7, 7); g.stroke(); }
  return c;
}

class EmpireMap {
  // onPick(kind, id): a sector ("sector", "x,y") or a ship's or unit's marker was chosen.
  constructor(canvas, data, onPick) {
    this.canvas = canvas;
    this.onPick = onPick;
    this.ctx = canvas.getContext("2d");
    this.patterns = {};
    for (const kind of ["dots", "lines", "stripes", "cross"]) this.patterns[kind] = this.ctx.createPattern(patternCanvas(kind), "repeat");
    this.layers = [];
    this.picked = null;
    this.cursor = null;
    this.showCursor = false;
    this.frame = 0;
    this.draws = 0;
    this.load(data);
    this.addLayer("plan", 10, (ctx, api) => this.drawPlan(ctx, api));
    this.addLayer("picked", 20, (ctx, api) => {
      for (const p of api.positions(this.picked)) { api.hex(ctx, p.x, p.y); }
      ctx.lineWidth = Math.max(2, api.r * 0.2); ctx.strokeStyle = "#000"; ctx.stroke();
    });
    this.addLayer("cursor", 30, (ctx, api) => {
      if (!this.showCursor) return;
      for (const p of api.positions(this.cursor)) { api.hex(ctx, p.x, p.y, 0.92); }
      ctx.setLineDash([4, 3]); ctx.lineWidth = 2; ctx.strokeStyle = "#000"; ctx.stroke(); ctx.setLineDash([]);
    });
    this.resize();
    new ResizeObserver(() => this.resize()).observe(canvas.parentElement);
    this.view = this.homeView();
    this.listen();
  }

  // -- data --------------------------------------------------------------------------

  load(d) {
    this.data = d;
    const W = (this.W = d.width), H = (this.H = d.height);
    const nations = new Map(d.nations.map((n) => [n.cnum, n]));
    const col = d.sectors;
    this.grid = new Int32Array(W * H).fill(-1);
    this.byKey = new Map();
    this.sectors = col.x.map((x, k) => {
      const y = col.y[k], des = col.des[k], kind = d.designations[des];
      const owner = col.owner[k], nation = nations.get(owner);
      const s = {
        k, x, y, key: `${x},${y}`, des, desName: kind.name, sea: kind.sea, owner,
        ownerName: nation ? nation.name : "", relation: owner === 0 ? "none" : (nation ? nation.relation : "none"),
        eff: col.eff[k], mil: col.mil[k], civ: col.civ[k], mob: col.mob[k], mines: col.mines[k],
        seen: col.seen ? col.seen[k] : "known",
        units: [], ships: [], planes: [], markers: [], badges: "",
      };
      this.grid[mod(y + H / 2, H) * W + mod(x + W / 2, W)] = k;
      this.byKey.set(s.key, s);
      return s;
    });
    for (const kind of ["units", "ships", "planes"]) {
      for (const thing of d[kind]) this.byKey.get(thing.key)?.[kind].push({ ...thing, kind: kind.slice(0, -1) });
    }
    for (const s of this.sectors) {
      const counts = {};
      for (const [kind, letter] of [["units", "u"], ["ships", "s"], ["planes", "p"]]) {
        for (const t of s[kind]) {
          if (t.aboard) continue;
          const mark = t.relation === "own" ? letter : letter.toUpperCase();
          counts[mark] = (counts[mark] || 0) + 1;
          if (t.relation !== "own" && kind !== "planes" && s.markers.length < MARKER_SLOTS.length) s.markers.push(t);
        }
      }
      s.badges = Object.entries(counts).map(([m, n]) => `${m}${n}`).join(" ");
    }
    this.schedule();
  }

  sector(key) { return this.byKey.get(key) || null; }

  describe(s) {
    if (!s) return "";
    let text = `${s.key} ${s.desName}`;
    if (s.owner) text += `, ${s.ownerName} (#${s.owner}, ${s.relation})`;
    if (s.seen === "unknown") return text + SEEN_TEXT.unknown;
    if (!s.sea) text += `: ${s.eff}%, ${s.mil} mil, ${s.civ} civ, mob ${s.mob}${s.mines === null ? "" : `, ${s.mines} mines`}`;
    text += SEEN_TEXT[s.seen] || "";
    for (const u of s.units) text += `\nunit ${u.label} of #${u.owner}: ${u.mil} mil, ${u.eff}%${u.aboard ? ", aboard" : ""}`;
    for (const sh of s.ships) text += `\nship ${sh.label} of #${sh.owner}: ${sh.mil} mil, ${sh.eff}%`;
    for (const p of s.planes) text += `\nplane ${p.label}: ${p.eff}%, mob ${p.mob}`;
    return text;
  }

  // -- geometry: grid (i, j) unwrapped; map units (hex radius 1); screen (CSS px) -------

  gridOf(s) { return [s.x + this.W / 2, s.y + this.H / 2]; }
  centre(i, j) { return [(i + 0.5) * DX, (j + 0.5) * DY]; }
  toScreen(mx, my) { return [(mx - this.view.x) * this.view.s, (my - this.view.y) * this.view.s]; }
  toMap(px, py) { return [this.view.x + px / this.view.s, this.view.y + py / this.view.s]; }

  // Every visible sector, wrapped round the world: fn(sector, screenX, screenY).
  eachVisible(fn) {
    const { x, y, s } = this.view, W = this.W, H = this.H;
    const i0 = Math.floor(x / DX) - 2, i1 = Math.ceil((x + this.cw / s) / DX) + 1;
    const j0 = Math.floor(y / DY) - 1, j1 = Math.ceil((y + this.ch / s) / DY) + 1;
    for (let j = j0; j <= j1; j++) {
      const row = mod(j, H) * W, py = ((j + 0.5) * DY - y) * s;
      for (let i = i0; i <= i1; i++) {
        const k = this.grid[row + mod(i, W)];
        if (k >= 0) fn(this.sectors[k], ((i + 0.5) * DX - x) * s, py);
      }
    }
  }

  // The screen positions of a sector: one per copy of the world in view (none off screen).
  positions(key) {
    const s = key && this.sector(key);
    if (!s) return [];
    const [i, j] = this.gridOf(s), out = [];
    const { x, y, s: k } = this.view, spanX = this.W * DX, spanY = this.H * DY, m = 2;
    const [mx, my] = this.centre(i, j);
    for (let a = Math.floor((x - mx) / spanX); mx + a * spanX <= x + this.cw / k + m; a++) {
      for (let b = Math.floor((y - my) / spanY); my + b * spanY <= y + this.ch / k + m; b++) {
        const [px, py] = this.toScreen(mx + a * spanX, my + b * spanY);
        if (px > -m * k && py > -m * k) out.push({ x: px, y: py });
      }
    }
    return out;
  }

  // The copy of a sector nearest to a map point (for arrows that never cross the world).
  nearest(key, mx, my) {
    const s = this.sector(key);
    if (!s) return null;
    const [cx, cy] = this.centre(...this.gridOf(s)), spanX = this.W * DX, spanY = this.H * DY;
    return [cx + Math.round((mx - cx) / spanX) * spanX, cy + Math.round((my - cy) / spanY) * spanY];
  }

  // The sector (and the ship or unit marker, if any) under a point of the canvas.
  hit(px, py) {
    const [mx, my] = this.toMap(px, py);
    let best = null, bestD = Infinity;
    const j0 = Math.floor(my / DY - 0.5);
    for (let j = j0 - 1; j <= j0 + 2; j++) {
      const i0 = Math.round(mx / DX - 0.5);
      for (let i = i0 - 2; i <= i0 + 2; i++) {
        const k = this.grid[mod(j, this.H) * this.W + mod(i, this.W)];
        if (k < 0) continue;
        const [cx, cy] = this.centre(i, j), d = (cx - mx) ** 2 + (cy - my) ** 2;
        if (d < bestD) { bestD = d; best = { s: this.sectors[k], cx, cy }; }
      }
    }
    if (!best || bestD > 1) return null;
    const thing = this.view.s >= 12 && best.s.markers.find((t, n) => {
      const [ox, oy] = MARKER_SLOTS[n];
      return Math.abs(mx - best.cx - ox) < 0.3 && Math.abs(my - best.cy - oy) < 0.22;
    });
    return { sector: best.s, thing: thing || null };
  }

  // -- views -----------------------------------------------------------------------------

  resize() {
    const r = this.canvas.parentElement.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    this.cw = Math.max(1, r.width);
    this.ch = Math.max(1, r.height);
    this.canvas.width = Math.round(this.cw * dpr);
    this.canvas.height = Math.round(this.ch * dpr);
    this.canvas.style.width = `${this.cw}px`;
    this.canvas.style.height = `${this.ch}px`;
    this.dpr = dpr;
    if (this.view) { this.view = this.clamp(this.view); this.draw(); }
  }

  wholeWorld() {
    const w = this.W * DX, h = this.H * DY, s = Math.min(this.cw / w, this.ch / h);
    return { x: w / 2 - this.cw / s / 2, y: h / 2 - this.ch / s / 2, s };
  }

  // Start on the country's own sectors (at least a third of the world wide), not the whole world.
  homeView() {
    const own = this.sectors.filter((s) => s.relation === "own" || s.units.some((t) => t.relation === "own") || s.ships.some((t) => t.relation === "own"));
    if (!own.length) return this.wholeWorld();
    const xs = own.map((s) => this.centre(...this.gridOf(s))[0]), ys = own.map((s) => this.centre(...this.gridOf(s))[1]);
    const lo = [Math.min(...xs), Math.min(...ys)], hi = [Math.max(...xs), Math.max(...ys)];
    const w = Math.max(this.W * DX / 3, hi[0] - lo[0] + 6), h = Math.max(this.H * DY / 3, hi[1] - lo[1] + 6);
    const s = Math.min(this.cw / w, this.ch / h);
    return this.clamp({ x: (lo[0] + hi[0]) / 2 - this.cw / s / 2, y: (lo[1] + hi[1]) / 2 - this.ch / s / 2, s });
  }

  // Zoom between a third more than the whole world and a hex 80 px across.
  clamp(v) {
    const whole = this.wholeWorld().s;
    return { ...v, s: Math.min(40, Math.max(whole * 0.75, v.s)) };
  }

  setView(v) { this.view = this.clamp(v); this.schedule(); }

  zoom(factor, px = this.cw / 2, py = this.ch / 2) {
    const [mx, my] = this.toMap(px, py);
    const s = this.clamp({ s: this.view.s * factor }).s;
    this.setView({ x: mx - px / s, y: my - py / s, s });
  }

  pan(dx, dy) { this.setView({ ...this.view, x: this.view.x - dx / this.view.s, y: this.view.y - dy / this.view.s }); }

  // Bring a sector on screen (centred) when it is not; its screen position.
  reveal(key) {
    let p = this.positions(key).find((q) => q.x > 20 && q.y > 20 && q.x < this.cw - 20 && q.y < this.ch - 20);
    if (!p) {
      const [mx, my] = this.centre(...this.gridOf(this.sector(key)));
      this.view = this.clamp({ ...this.view, x: mx - this.cw / 2 / this.view.s, y: my - this.ch / 2 / this.view.s });
      this.draw();
      p = this.positions(key)[0];
    }
    return p;
  }

  // -- drawing ------------------------------------------------------------------------

  schedule() { if (!this.frame) this.frame = requestAnimationFrame(() => this.draw()); }

  addLayer(name, z, draw) {
    this.layers = this.layers.filter((l) => l.name !== name);
    if (draw) this.layers.push({ name, z, draw });
    this.layers.sort((a, b) => a.z - b.z);
    this.schedule();
  }

  draw() {
    this.frame = 0;
    const started = performance.now();
    const ctx = this.ctx, r = this.view.s;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = BACKGROUND;
    ctx.fillRect(0, 0, this.cw, this.ch);
    const fills = new Map(), patterns = new Map(), edges = new Path2D();
    const add = (map, key) => { let p = map.get(key); if (!p) map.set(key, (p = new Path2D())); return p; };
    const gap = r >= 6 ? 0.95 : 1.02;
    this.eachVisible((s, x, y) => {
      const fill = s.sea ? SEA_FILL : RELATION_FILL[s.relation];
      hexPath(add(fills, fill), x, y, r * gap);
      const pat = !s.sea && RELATION_PATTERN[s.relation];
      if (pat) hexPath(add(patterns, pat), x, y, r * gap);
    });
    for (const [fill, path] of fills) { ctx.fillStyle = fill; ctx.fill(path); }
    for (const [pat, path] of patterns) { ctx.fillStyle = this.patterns[pat]; ctx.fill(path); }
    const veils = new Map();
    this.eachVisible((s, x, y) => { if (SEEN_VEIL[s.seen]) hexPath(add(veils, SEEN_VEIL[s.seen]), x, y, r * gap); });
    for (const [veil, path] of veils) { ctx.fillStyle = veil; ctx.fill(path); }
    if (r >= 9) this.drawLabels(ctx, r);
    const api = this.api();
    for (const layer of this.layers) { ctx.save(); ctx.beginPath(); layer.draw(ctx, api); ctx.restore(); }
    this.draws++;
    this.drawMs = performance.now() - started;
    if (!timings.firstMap) timings.firstMap = Math.round(performance.now());
  }

  drawLabels(ctx, r) {
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillStyle = "#111";
    const font = (px, bold) => `${bold ? "700 " : ""}${px.toFixed(1)}px "DejaVu Sans", sans-serif`;
    ctx.font = font(0.58 * r, true);
    this.eachVisible((s, x, y) => { if (!s.sea) ctx.fillText(s.des, x, y - 0.22 * r); });
    ctx.font = font(0.45 * r, true);
    this.eachVisible((s, x, y) => { if (s.mil) ctx.fillText(String(s.mil), x, y + 0.4 * r); });
    if (r >= 16) {
      ctx.font = font(0.3 * r, false);
      this.eachVisible((s, x, y) => { if (s.owner && !s.sea) ctx.fillText(String(s.owner), x, y - 0.6 * r); });
      ctx.font = font(0.28 * r, true);
      this.eachVisible((s, x, y) => { if (s.badges) ctx.fillText(s.badges, x, y + 0.78 * r); });
    }
    if (r >= 12) {
      ctx.lineWidth = 1;
      this.eachVisible((s, x, y) => {
        s.markers.forEach((t, n) => {
          const mx = x + MARKER_SLOTS[n][0] * r, my = y + MARKER_SLOTS[n][1] * r, u = r / 12;
          ctx.beginPath();
          if (t.kind === "ship") { ctx.moveTo(mx - 3.8 * u, my - 1.5 * u); ctx.lineTo(mx + 3.8 * u, my - 1.5 * u); ctx.lineTo(mx + 2.5 * u, my + 1.9 * u); ctx.lineTo(mx - 2.5 * u, my + 1.9 * u); ctx.closePath(); }
          else ctx.rect(mx - 3.2 * u, my - 2.2 * u, 6.4 * u, 4.4 * u);
          ctx.fillStyle = this.chosen && this.chosen.kind === t.kind && String(this.chosen.id) === String(t.uid) ? "#ffd84d" : "#fff";
          ctx.fill(); ctx.strokeStyle = "#111"; ctx.stroke();
          if (r >= 20) { ctx.fillStyle = "#111"; ctx.font = font(3 * u, true); ctx.fillText(String(t.owner), mx, my + 0.2 * u); }
        });
      });
    }
  }

  // What a layer draws with: the hex radius on screen, every visible sector, a sector's
  // positions, a hex path, and an arrow between two sectors.
  api() {
    const map = this;
    return {
      r: this.view.s,
      each: (fn) => this.eachVisible(fn),
      positions: (key) => this.positions(key),
      sector: (key) => this.sector(key),
      hex: (ctx, x, y, scale = 1) => hexPath(ctx, x, y, map.view.s * scale),
      arrow: (ctx, from, to, style = {}) => this.arrow(ctx, from, to, style),
    };
  }

  // An arrow from one sector to another, by their nearest copies, stopping short of both.
  arrow(ctx, from, to, { colour = "#0072b2", width = 0 } = {}) {
    const t = this.sector(to) && this.centre(...this.gridOf(this.sector(to)));
    if (!t) return;
    const [vx, vy] = this.toMap(this.cw / 2, this.ch / 2);
    const tt = this.nearest(to, vx, vy), ff = this.nearest(from, ...tt);
    if (!ff) return;
    const [x1, y1] = this.toScreen(...ff), [x2, y2] = this.toScreen(...tt);
    const len = Math.hypot(x2 - x1, y2 - y1), r = this.view.s;
    if (len < r) return;
    const ux = (x2 - x1) / len, uy = (y2 - y1) / len, lw = width || Math.max(2, r * 0.16);
    const sx = x1 + ux * r * 0.45, sy = y1 + uy * r * 0.45, ex = x2 - ux * r * 0.55, ey = y2 - uy * r * 0.55;
    const head = Math.max(7, r * 0.45);
    ctx.beginPath();
    ctx.moveTo(sx, sy); ctx.lineTo(ex - ux * head * 0.8, ey - uy * head * 0.8);
    ctx.strokeStyle = colour; ctx.lineWidth = lw; ctx.lineCap = "round"; ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(ex, ey);
    ctx.lineTo(ex - ux * head - uy * head * 0.5, ey - uy * head + ux * head * 0.5);
    ctx.lineTo(ex - ux * head + uy * head * 0.5, ey - uy * head - ux * head * 0.5);
    ctx.closePath(); ctx.fillStyle = colour; ctx.fill();
  }

  // The plan shown on the panel: its sources outlined and tinted, an arrow from each.
  setPlan(plan) { this.plan = plan; this.schedule(); }

  drawPlan(ctx, api) {
    if (!this.plan) return;
    for (const key of this.plan.sources) {
      for (const p of api.positions(key)) {
        ctx.beginPath(); api.hex(ctx, p.x, p.y, 0.86);
        ctx.fillStyle = "rgba(255, 255, 255, .35)"; ctx.fill();
        ctx.lineWidth = Math.max(2, api.r * 0.13); ctx.strokeStyle = "#1d232a"; ctx.stroke();
      }
    }
    for (const key of this.plan.sources) {
      if (key === this.plan.target) continue;
      this.arrow(ctx, key, this.plan.target, { colour: "#fff", width: Math.max(4, api.r * 0.26) });
      this.arrow(ctx, key, this.plan.target, { colour: "#1d232a" });
    }
  }

  // -- input ------------------------------------------------------------------------

  listen() {
    const c = this.canvas, tip = document.getElementById("map-tip");
    const local = (e) => { const r = c.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
    c.addEventListener("wheel", (e) => { e.preventDefault(); this.zoom(Math.exp(-e.deltaY * 0.0015), ...local(e)); }, { passive: false });
    let drag = null;
    c.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      drag = { x: e.clientX, y: e.clientY, view: { ...this.view }, moved: false, id: e.pointerId };
    });
    c.addEventListener("pointermove", (e) => {
      if (!drag) { this.hover(...local(e), e, tip); return; }
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      if (!drag.moved) { drag.moved = true; c.setPointerCapture(drag.id); c.classList.add("dragging"); tip.hidden = true; }
      this.setView({ ...drag.view, x: drag.view.x - dx / drag.view.s, y: drag.view.y - dy / drag.view.s });
    });
    const end = (e) => {
      if (!drag) return;
      const click = !drag.moved && e.type === "pointerup";
      drag = null;
      c.classList.remove("dragging");
      if (!click) return;
      const hit = this.hit(...local(e));
      if (!hit) return;
      this.showCursor = false;  // a click is not the keyboard: no dashed cursor beside it
      if (hit.thing) this.onPick(hit.thing.kind, String(hit.thing.uid));
      else this.onPick("sector", hit.sector.key);
    };
    c.addEventListener("pointerup", end);
    c.addEventListener("pointercancel", end);
    c.addEventListener("pointerleave", () => { tip.hidden = true; });

    // keyboard: arrows move a cursor over the sectors, Enter picks, +/- zoom
    c.addEventListener("keydown", (e) => {
      const moves = { ArrowLeft: [-2, 0], ArrowRight: [2, 0], ArrowUp: [-1, -1], ArrowDown: [1, 1] };
      if (e.key in moves) {
        e.preventDefault();
        const [mx, my] = moves[e.key];
        if (e.shiftKey) { this.pan(-mx * this.cw / 16, -my * this.ch / 16); return; }
        let [x, y] = (this.cursor || this.picked || "0,0").split(",").map(Number);
        let dx = mx;
        const wrapX = (v) => mod(v + this.W / 2, this.W) - this.W / 2, wrapY = (v) => mod(v + this.H / 2, this.H) - this.H / 2;
        if (e.key === "ArrowUp" && !this.sector(`${wrapX(x + dx)},${wrapY(y + my)}`)) dx = 1;
        if (e.key === "ArrowDown" && !this.sector(`${wrapX(x + dx)},${wrapY(y + my)}`)) dx = -1;
        this.moveCursor(`${wrapX(x + dx)},${wrapY(y + my)}`);
      } else if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        this.onPick("sector", this.cursor || this.picked || "0,0");
      } else if (e.key === "+" || e.key === "=") { this.zoom(1.25); }
      else if (e.key === "-") { this.zoom(1 / 1.25); }
      else if (e.key === "0") { this.setView(this.wholeWorld()); }
    });
    c.addEventListener("focus", () => {
      if (!c.matches(":focus-visible")) return;  // a click focuses the map too: no cursor then
      this.moveCursor(this.cursor || this.picked || "0,0");
    });
    c.addEventListener("blur", () => { this.showCursor = false; this.schedule(); });
  }

  moveCursor(key) {
    this.cursor = key;
    this.showCursor = true;
    this.reveal(key);
    this.schedule();
    const out = document.getElementById("cursor-say");
    if (out) out.textContent = this.describe(this.sector(key)).replace(/\s+/g, " ").trim();
  }

  hover(px, py, e, tip) {
    const hit = this.hit(px, py);
    if (!hit) { tip.hidden = true; return; }
    const t = hit.thing;
    tip.textContent = t ? `${t.kind} ${t.label} of #${t.owner} (${t.relation}), ${t.mil} mil: click for the ways to take it` : this.describe(hit.sector);
    tip.hidden = false;
    const w = tip.offsetWidth, h = tip.offsetHeight;
    tip.style.left = `${Math.min(px + 14, this.cw - w - 4)}px`;
    tip.style.top = `${py + 18 + h > this.ch ? py - h - 10 : py + 18}px`;
  }

  setPicked(key) { this.picked = key; this.schedule(); }
  setChosen(thing) { this.chosen = thing; this.schedule(); }

  // For tests and scripts: where to click to reach a sector, or a ship's or unit's marker.
  clientPoint(key) {
    const p = this.reveal(key), r = this.canvas.getBoundingClientRect();
    return { x: r.left + p.x, y: r.top + p.y };
  }

  thingPoint(kind, id) {
    const s = this.sectors.find((q) => q.markers.some((t) => t.kind === kind && String(t.uid) === String(id)));
    if (!s) return null;
    if (this.view.s < 24) { this.view = this.clamp({ ...this.view, s: 24 }); }
    const p = this.reveal(s.key), n = s.markers.findIndex((t) => t.kind === kind && String(t.uid) === String(id));
    const r = this.canvas.getBoundingClientRect();
    return { x: r.left + p.x + MARKER_SLOTS[n][0] * this.view.s, y: r.top + p.y + MARKER_SLOTS[n][1] * this.view.s };
  }
}

// A hex's outline, back to its first corner by a line: closePath() would make a path of
// many hexes quadratic in Chrome (20,000 hexes took 10 s, this way 15 ms).
function hexPath(path, x, y, r) {
  path.moveTo(x + CORNERS[0][0] * r, y + CORNERS[0][1] * r);
  for (let k = 1; k <= 6; k++) path.lineTo(x + CORNERS[k % 6][0] * r, y + CORNERS[k % 6][1] * r);
}

function readMapData(root) {
  const el = root.querySelector("#map-data");
  return { data: JSON.parse(el.textContent), version: el.dataset.version };
}
