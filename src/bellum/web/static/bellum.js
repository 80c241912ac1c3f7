// bellum planning table: the little the server cannot do for the page.
// Pan and zoom the map, pick a target, ask for odds as a plan changes, send fights.
// Every fragment comes rendered from the server; this script only swaps them in.
"use strict";

const FRAGMENT = { "X-Bellum-Fragment": "1" };

async function fetchFragment(url, options = {}) {
  const response = await fetch(url, {
    ...options, headers: { ...FRAGMENT, ...(options.headers || {}) },
  });
  return { ok: response.ok, status: response.status, html: await response.text() };
}

function formQuery(form, extra = {}) {
  const data = new URLSearchParams(new FormData(form));
  for (const [k, v] of Object.entries(extra)) data.set(k, v);
  return data;
}

// ---------------------------------------------------------------- map: pan and zoom

function setupMap(table) {
  const svg = document.getElementById("map");
  if (!svg) return;
  const full = { x: 0, y: 0, w: +svg.dataset.w, h: +svg.dataset.h };
  let view = table._view || homeView(svg, full);
  let frame = 0;
  const apply = () => {
    frame = 0;
    svg.setAttribute("viewBox", `${view.x.toFixed(2)} ${view.y.toFixed(2)} ${view.w.toFixed(2)} ${view.h.toFixed(2)}`);
    table._view = view;
  };
  const schedule = () => { if (!frame) frame = requestAnimationFrame(apply); };
  apply();

  const toMap = (clientX, clientY) => {
    const r = svg.getBoundingClientRect();
    // preserveAspectRatio="xMidYMid meet": one scale for both axes
    const s = Math.max(view.w / r.width, view.h / r.height);
    const ox = (r.width * s - view.w) / 2, oy = (r.height * s - view.h) / 2;
    return { x: view.x - ox + (clientX - r.left) * s, y: view.y - oy + (clientY - r.top) * s, s };
  };
  const zoom = (factor, cx, cy) => {
    const w = Math.min(full.w * 1.5, Math.max(full.w / 16, view.w * factor));
    const k = w / view.w;
    if (cx === undefined) { cx = view.x + view.w / 2; cy = view.y + view.h / 2; }
    view = { x: cx - (cx - view.x) * k, y: cy - (cy - view.y) * k, w, h: view.h * k };
    schedule();
  };
  table._zoom = zoom;
  table._fit = () => { view = { ...full }; schedule(); };

  svg.addEventListener("wheel", (e) => {
    e.preventDefault();
    const p = toMap(e.clientX, e.clientY);
    zoom(Math.exp(e.deltaY * 0.0015), p.x, p.y);
  }, { passive: false });

  let drag = null;
  svg.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, view: { ...view }, moved: false, id: e.pointerId };
  });
  svg.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 4) return;
    if (!drag.moved) { drag.moved = true; svg.setPointerCapture(drag.id); svg.classList.add("dragging"); }
    const s = toMap(0, 0).s;
    view = { ...drag.view, x: drag.view.x - dx * s, y: drag.view.y - dy * s };
    schedule();
  });
  const end = (e) => {
    if (!drag) return;
    const wasDrag = drag.moved;
    drag = null;
    svg.classList.remove("dragging");
    if (!wasDrag && e.type === "pointerup" && e.target.closest) {
      // Someone's ship or land unit drawn in a sector is a target of its own.
      const thing = e.target.closest(".thing");
      const sec = e.target.closest(".sec");
      if (thing) pick(table, thing.dataset.kind, thing.dataset.id);
      else if (sec) pick(table, "sector", sec.dataset.key);
    }
  };
  svg.addEventListener("pointerup", end);
  svg.addEventListener("pointercancel", end);

  // keyboard: arrows move a cursor over the sectors, Enter picks, +/- zoom
  svg.addEventListener("keydown", (e) => {
    const W = +svg.dataset.width, H = +svg.dataset.height;
    let [x, y] = (table._cursor || "0,0").split(",").map(Number);
    const moves = { ArrowLeft: [-2, 0], ArrowRight: [2, 0], ArrowUp: [-1, -1], ArrowDown: [1, 1] };
    if (e.key in moves) {
      e.preventDefault();
      if (e.shiftKey) {  // pan
        const [mx, my] = moves[e.key];
        view = { ...view, x: view.x + mx * view.w / 16, y: view.y + my * view.h / 16 };
        schedule();
        return;
      }
      let [dx, dy] = moves[e.key];
      if (e.key === "ArrowUp" && !sector(svg, x + dx, y + dy)) dx = 1;
      if (e.key === "ArrowDown" && !sector(svg, x + dx, y + dy)) dx = -1;
      x = wrap(x + dx, W); y = wrap(y + dy, H);
      table._cursor = `${x},${y}`;
      mark(svg, "cursor", table._cursor, true);
      say(svg, table._cursor);
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      pick(table, "sector", table._cursor || "0,0");
    } else if (e.key === "+" || e.key === "=") { zoom(1 / 1.25); }
    else if (e.key === "-") { zoom(1.25); }
    else if (e.key === "0") { table._fit(); }
  });
  svg.addEventListener("focus", () => {
    if (!table._cursor) table._cursor = "0,0";
    mark(svg, "cursor", table._cursor, false);
    say(svg, table._cursor);
  });
  svg.addEventListener("blur", () => document.getElementById("cursor").setAttribute("visibility", "hidden"));
  if (table._picked) mark(svg, "picked", table._picked, false);
}

// Start on the country's own sectors (at least a third of the world wide), not the whole world.
function homeView(svg, full) {
  const own = [...svg.querySelectorAll(".sec.r-own, .sec[data-mine]")].map((g) => g.transform.baseVal.consolidate().matrix);
  if (!own.length) return { ...full };
  const xs = own.map((m) => m.e), ys = own.map((m) => m.f);
  const cx = (Math.min(...xs) + Math.max(...xs)) / 2, cy = (Math.min(...ys) + Math.max(...ys)) / 2;
  const w = Math.min(full.w, Math.max(full.w / 3, Math.max(...xs) - Math.min(...xs) + 80));
  const h = Math.min(full.h, Math.max(full.h / 3, Math.max(...ys) - Math.min(...ys) + 80));
  return { x: cx - w / 2, y: cy - h / 2, w, h };
}

function wrap(v, size) {
  const half = size / 2;
  return ((v + half) % size + size) % size - half;
}

function sector(svg, x, y) {
  return svg.querySelector(`.sec[data-key="${x},${y}"]`);
}

// Tell a screen reader what is under the keyboard cursor: the sector's own tooltip.
function say(svg, key) {
  const sec = sector(svg, ...key.split(",").map(Number));
  const out = document.getElementById("cursor-say");
  if (sec && out) out.textContent = sec.querySelector(":scope > title").textContent.replace(/\s+/g, " ").trim();
}

function mark(svg, id, key, follow) {
  const el = document.getElementById(id);
  const sec = svg.querySelector(`.sec[data-key="${CSS.escape(key)}"]`);
  if (!el || !sec) return;
  el.setAttribute("transform", sec.getAttribute("transform"));
  el.setAttribute("visibility", "visible");
  if (follow) {
    const t = sec.transform.baseVal.consolidate().matrix;
    const vb = svg.viewBox.baseVal;
    if (t.e < vb.x || t.e > vb.x + vb.width || t.f < vb.y || t.f > vb.y + vb.height) {
      svg.closest(".table")._view = { x: t.e - vb.width / 2, y: t.f - vb.height / 2, w: vb.width, h: vb.height };
      svg.setAttribute("viewBox", `${t.e - vb.width / 2} ${t.f - vb.height / 2} ${vb.width} ${vb.height}`);
    }
  }
}

// ---------------------------------------------------------------- the target panel

async function pick(table, kind, id) {
  const panel = document.getElementById("panel");
  const as = table.dataset.as;
  const svg = document.getElementById("map");
  if (kind === "sector") {
    table._picked = id;
    mark(svg, "picked", id, false);
  }
  svg.querySelectorAll(".thing.chosen").forEach((t) => t.classList.remove("chosen"));
  if (kind !== "sector") {
    svg.querySelector(`.thing[data-kind="${kind}"][data-id="${CSS.escape(id)}"]`)?.classList.add("chosen");
  }
  table._target = { kind, id };
  panel.setAttribute("aria-busy", "true");
  const q = new URLSearchParams({ as, kind, id });
  const r = await fetchFragment(`/empire/target?${q}`);
  if (table._target.kind !== kind || table._target.id !== id) return;  // a later pick won
  panel.innerHTML = r.html;
  panel.removeAttribute("aria-busy");
  panel.dataset.loaded = `${kind}:${id}`;
  const at = panel.querySelector("#panel-title")?.dataset.at;
  if (at && kind !== "sector") { table._picked = at; mark(svg, "picked", at, false); }
  panel.querySelectorAll("form[data-plan]").forEach(setupPlan);
  const title = document.getElementById("panel-title");
  if (title) { title.tabIndex = -1; }
  history.replaceState(null, "", `/empire?as=${as}${kind === "sector" ? `&target=${encodeURIComponent(id)}` : ""}`);
}

function setupPlan(form) {
  const odds = form.querySelector(".odds");
  // One request at a time per plan, the latest wish wins: the odds while a control
  // moves, and again once it rests (the server keeps each plan's, so that one is quick).
  // The server never queues stale work.
  let inflight = false, want = null, lastInput = 0, liveTimer = 0, restTimer = 0;

  const pump = async () => {
    if (inflight || !want) return;
    const live = want === "live";
    want = null;
    inflight = true;
    const started = performance.now(), asked = lastInput;
    clearErrors(form);
    odds.querySelector(".odds-box")?.classList.add("stale");
    try {
      const r = await fetchFragment(`/empire/odds?${formQuery(form, { live: live ? "1" : "0" })}`);
      if (!r.ok) { showError(form, odds, r.html); return; }
      odds.innerHTML = r.html;
      const now = performance.now(), ms = Math.round(now - started);
      const box = odds.querySelector(".odds-box");
      box.dataset.latency = ms;
      box.querySelector(".latency").textContent = `Answered in ${ms} ms.`;
      form.dataset[live ? "movingMs" : "restMs"] = ms;
      box.dataset.request = live ? "live" : "rest";
      if (asked) form.dataset.sinceInputMs = Math.round(now - asked);
      form.dataset.updates = (+form.dataset.updates || 0) + 1;
    } finally {
      inflight = false;
      pump();
    }
  };
  const ask = (live) => {
    if (!live || want !== "rest") want = live ? "live" : "rest";
    pump();
  };

  form.querySelectorAll(".slider").forEach((s) => {
    const range = s.querySelector("input[type=range]");
    const number = s.querySelector("input.mirror");
    range.addEventListener("input", () => { number.value = range.value; });
    number.addEventListener("input", () => {
      const v = Math.max(0, Math.min(+range.max, Math.round(+number.value || 0)));
      range.value = v;
    });
    number.addEventListener("change", () => { number.value = range.value; });
  });
  form.addEventListener("input", (e) => {
    if (e.target.name === "seed") return;
    lastInput = performance.now();
    clearTimeout(liveTimer);
    clearTimeout(restTimer);
    liveTimer = setTimeout(() => ask(true), 30);
  });
  form.addEventListener("change", (e) => {
    if (e.target.name === "seed") return;
    lastInput = lastInput || performance.now();
    clearTimeout(restTimer);
    restTimer = setTimeout(() => ask(false), 250);
  });
  form.addEventListener("click", async (e) => {
    const b = e.target.closest("button[data-action]");
    if (!b) return;
    const action = b.dataset.action;
    const out = action === "need" ? form.querySelector(".need") : odds;
    b.disabled = true;
    out.innerHTML = `<p class="note">${action === "need" ? "Searching for the force…" : "Playing the command…"}</p>`;
    const r = await fetchFragment(`/empire/${action}?${formQuery(form)}`);
    b.disabled = false;
    if (!r.ok) { showError(form, out, r.html); return; }
    out.innerHTML = r.html;
  });
  form.querySelector(".need").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-use-mil]");
    if (!b) return;
    for (const [key, n] of Object.entries(JSON.parse(b.dataset.useMil))) {
      const range = form.querySelector(`input[type=range][name="mil.${CSS.escape(key)}"]`);
      if (range) { range.value = n; range.closest(".slider").querySelector(".mirror").value = n; }
    }
    ask(false);
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    await fight(form, formQuery(form));
  });
  ask(false);
}

async function fight(form, body) {
  const section = form.closest(".way");
  const out = section.querySelector(".fight-out");
  const button = section.querySelector("button.fight");
  if (button) button.disabled = true;
  out.innerHTML = `<p class="note">Fighting…</p>`;
  const r = await fetchFragment("/empire/fight", {
    method: "POST", body, headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  if (button) button.disabled = false;
  if (!r.ok) { out.innerHTML = r.html; return; }
  const shown = out._shown || "";
  out.innerHTML = r.html;
  const result = out.querySelector(".fight-result");
  result.dataset.step = body.getAll("answer").length;
  const answer = result.querySelector("form[data-answer]");
  if (answer) {
    // Wired before the transcript types out, so an early Enter is never a page load.
    answer.addEventListener("submit", (e) => {
      e.preventDefault();
      const next = formQuery(answer);
      if (e.submitter && e.submitter.dataset.quick !== undefined) {
        // a y/n button answers instead of the text box
        const all = next.getAll("answer");
        all[all.length - 1] = e.submitter.value;
        next.delete("answer");
        all.forEach((a) => next.append("answer", a));
      }
      fight(form, next);
    });
    answer.querySelector("input[name=answer]:not([type=hidden])").focus();
  }
  const pre = result.querySelector("pre.transcript");
  out._shown = answer ? pre.textContent : "";
  await typeOut(pre, shown);
  if (answer) return;
  if (result.dataset.changed === "1") {
    await refreshMap();
    // The odds above were for the world before the fight.
    section.querySelectorAll(".odds-box").forEach((b) => b.classList.add("stale"));
  }
  result.querySelector(".outcome")?.setAttribute("tabindex", "-1");
  result.querySelector(".outcome")?.focus();
}

// The transcript appears line by line, as the terminal shows it (what was already on
// the screen before an answer stays put).
async function typeOut(pre, shown = "") {
  if (!pre) return;
  const full = pre.textContent;
  const fresh = full.startsWith(shown) ? full.slice(shown.length) : full;
  const lines = fresh.split("\n");
  if (lines.length < 3 || window.matchMedia("(prefers-reduced-motion: reduce)").matches) {
    pre.dataset.done = "1";
    return;
  }
  pre.textContent = full.startsWith(shown) ? shown : "";
  for (let i = 0; i < lines.length; i++) {
    pre.textContent += lines[i] + (i < lines.length - 1 ? "\n" : "");
    pre.scrollTop = pre.scrollHeight;
    await new Promise((ok) => setTimeout(ok, 18));
  }
  pre.dataset.done = "1";
}

async function refreshMap() {
  const table = document.querySelector(".table.em");
  const r = await fetchFragment(`/empire/map?as=${table.dataset.as}`);
  if (!r.ok) return;
  document.getElementById("map-wrap").innerHTML = r.html;
  setupMap(table);
  const svg = document.getElementById("map");
  table.dataset.version = svg.dataset.version;
}

function clearErrors(form) {
  form.querySelectorAll(".err").forEach((el) => { el.textContent = ""; });
}

// An error that names a control ("--mil 0,0", "--unit 7", "options") goes next to it.
function showError(form, fallback, html) {
  const tmp = document.createElement("div");
  tmp.innerHTML = html;
  const text = tmp.textContent.trim();
  let m = text.match(/--mil (-?\d+,-?\d+)/) || text.match(/^mil\.(\S+?):/);
  let place = m && form.querySelector(`[data-control="mil.${CSS.escape(m[1])}"] .err`);
  if (!place && (m = text.match(/--unit (\d+)/))) place = form.querySelector(`[data-control="unit.${m[1]}"] .err`);
  if (!place && /option|profile/i.test(text)) place = form.querySelector(`[data-control="options"] .err`);
  if (place) { place.textContent = text; fallback.innerHTML = ""; }
  else fallback.innerHTML = html;
}

// A choice made with the mouse applies at once; with the keyboard, arrows only browse
// the options (Chrome reports each as a change) and Enter or leaving the list applies it.
function autosubmit(select) {
  const initial = select.value;
  let keyed = false;
  const go = () => { if (select.value !== initial) select.form.submit(); };
  select.addEventListener("pointerdown", () => { keyed = false; });
  select.addEventListener("keydown", (e) => {
    keyed = true;
    if (e.key === "Enter") { e.preventDefault(); go(); }
  });
  select.addEventListener("change", () => { if (!keyed) go(); });
  select.addEventListener("blur", () => { if (keyed) go(); });
}

// ---------------------------------------------------------------- start

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("select[data-autosubmit]").forEach(autosubmit);
  const table = document.querySelector(".table.em");
  if (table) {
    setupMap(table);
    document.querySelector(".toolbar").addEventListener("click", (e) => {
      const b = e.target.closest("button[data-zoom]");
      if (!b) return;
      if (b.dataset.zoom === "in") table._zoom(1 / 1.4);
      else if (b.dataset.zoom === "out") table._zoom(1.4);
      else table._fit();
    });
    document.querySelector("form[data-goto]").addEventListener("submit", (e) => {
      e.preventDefault();
      pick(table, "sector", new FormData(e.target).get("id").replace(/\s/g, ""));
    });
    document.getElementById("panel").addEventListener("click", (e) => {
      const b = e.target.closest("button[data-pick]");
      if (b) pick(table, b.dataset.kind, b.dataset.id);
      if (e.target.closest("button[data-replan]") && table._target) {
        pick(table, table._target.kind, table._target.id);
      }
    });
    if (table.dataset.target) pick(table, "sector", table.dataset.target);
  }
  const pz = document.querySelector(".pz-table");
  if (pz && window.bellumPanzer) window.bellumPanzer(pz);
});

// ---------------------------------------------------------------- Panzer

window.bellumPanzer = (table) => {
  const form = document.getElementById("pz-form");
  const planBox = document.getElementById("pz-plan");
  const resultBox = document.getElementById("pz-result");
  const wrap = document.getElementById("map-wrap");
  const before = wrap.innerHTML;
  let first = JSON.parse(table.dataset.units || "[]");

  const query = (pickAll) => {
    const q = new URLSearchParams({ target: form.target.value });
    if (first) { first.forEach((u) => q.append("unit", u)); first = null; }
    else if (pickAll) q.set("pick", "all");
    else planBox.querySelectorAll("input[name=unit]:checked").forEach((c) => q.append("unit", c.value));
    return q;
  };
  const markAttackers = () => {
    const chosen = new Set([...planBox.querySelectorAll("input[name=unit]:checked")].map((c) => c.value));
    wrap.querySelectorAll(".counter").forEach((g) => g.classList.toggle("attacking", chosen.has(g.dataset.unit)));
  };
  const load = async (pickAll) => {
    if (!form.target.value) { planBox.innerHTML = '<p class="note">Choose the hex to assault.</p>'; return; }
    if (wrap.innerHTML !== before) wrap.innerHTML = before;
    markAttackers();  // the units just chosen, not the page's first ones, while it loads
    resultBox.innerHTML = "";
    planBox.setAttribute("aria-busy", "true");
    const r = await fetchFragment(`/panzer/plan?${query(pickAll)}`);
    planBox.innerHTML = r.html;
    planBox.removeAttribute("aria-busy");
    table.dataset.plans = (+table.dataset.plans || 0) + 1;
    markAttackers();
  };
  table.querySelector("button[data-whole]").addEventListener("click", () => {
    const svg = wrap.querySelector("svg");
    svg.setAttribute("viewBox", svg.dataset.full);
  });
  form.target.addEventListener("change", () => load(true));
  planBox.addEventListener("change", () => load(false));
  wrap.addEventListener("click", (e) => {
    const counter = e.target.closest(".counter");
    const key = counter ? counter.dataset.hex : e.target.closest(".sec")?.dataset.key;
    if (!key || ![...form.target.options].some((o) => o.value === key)) return;
    form.target.value = key;
    load(true);
  });
  form.querySelector("button[data-action=resolve]").addEventListener("click", async () => {
    const q = new URLSearchParams({ target: form.target.value, seed: form.seed.value });
    planBox.querySelectorAll("input[name=unit]:checked").forEach((c) => q.append("unit", c.value));
    const r = await fetchFragment(`/panzer/resolve?${q}`);
    resultBox.innerHTML = r.html;
    const after = resultBox.querySelector("template#pz-after");
    if (after) wrap.innerHTML = after.innerHTML;
    resultBox.querySelector(".outcome")?.setAttribute("tabindex", "-1");
    resultBox.querySelector(".outcome")?.focus();
  });
  if (form.target.value) load(false);
};
