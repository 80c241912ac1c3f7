// bellum planning table: the little the server cannot do for the page.
// Pick a target on the map (empire-map.js), ask for odds as a plan changes, send fights.
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

// ---------------------------------------------------------------- the target panel

async function pick(table, kind, id, restore = null) {
  const panel = document.getElementById("panel");
  const as = table.dataset.as;
  const map = table._map;
  table._pickedAt = performance.now();
  if (kind === "sector") {
    map.setPicked(id);
    map.cursor = id;  // the keyboard goes on from what the mouse picked
  }
  map.setChosen(kind === "sector" ? null : { kind, id });
  map.setPlan(null);
  table._target = { kind, id };
  panel.querySelectorAll("form[data-plan]").forEach((f) => f._feed?.stop());
  panel.setAttribute("aria-busy", "true");
  const q = new URLSearchParams({ as, kind, id });
  const r = await fetchFragment(`/empire/target?${q}`);
  if (table._target.kind !== kind || table._target.id !== id) return;  // a later pick won
  panel.innerHTML = r.html;
  panel.removeAttribute("aria-busy");
  panel.dataset.loaded = `${kind}:${id}`;
  const title = document.getElementById("panel-title");
  const at = title?.dataset.at;
  if (at && kind !== "sector") map.setPicked(at);
  if (title) title.tabIndex = -1;
  keepInUrl(table, kind === "sector" ? { target: id } : { kind, target: id });
  const ways = [...panel.querySelectorAll("section.way")];
  const chosen = restore && ways.find((s) => s.dataset.command === restore.get("command")
    && s.dataset.source === (restore.get("source") || ""));
  ways.forEach((section) => setupWay(section, table, section === chosen ? restore : null));
}

// The plan in the address bar: a reload (or a link) comes back to the same target,
// the same force and the same fight's result.
function keepInUrl(table, fields) {
  const q = new URLSearchParams({ as: table.dataset.as });
  for (const [k, v] of fields instanceof URLSearchParams ? fields : Object.entries(fields)) {
    if (k !== "as") q.append(k, v);
  }
  history.replaceState(null, "", `/empire?${q}`);
}

function planQuery(form) {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (k !== "seed") q.append(k, v);
  return q;
}

// The fight shown under a plan stays in the address until another one replaces it.
function urlOfPlan(table, form) {
  const q = planQuery(form);
  if (table._target?.kind && table._target.kind !== "sector") q.set("kind", table._target.kind);
  const seed = form.elements.seed?.value.trim();
  if (seed) q.set("seed", seed);
  if (form.dataset.fight) q.set("fight", form.dataset.fight);
  return q;
}

// A control set from the address bar: the sliders within their bounds, the boxes as listed.
function restorePlan(section, form, q) {
  for (const range of form.querySelectorAll("input[type=range]")) {
    if (!q.has(range.name)) continue;
    range.value = Math.max(0, Math.min(+range.max, Math.round(+q.get(range.name) || 0)));
    range.closest(".slider").querySelector(".mirror").value = range.value;
  }
  for (const box of form.querySelectorAll("input[type=checkbox]:not(:disabled)")) {
    if (box.name === "support" && !q.has("support_given")) continue;
    box.checked = q.getAll(box.name).includes(box.value);
  }
  if (q.has("profile")) form.elements.profile.value = q.get("profile");
  if (q.get("options")) { form.elements.options.value = q.get("options"); form.querySelector("details.rules").open = true; }
  if (q.has("seed")) form.elements.seed.value = q.get("seed");
}

function setupWay(section, table, restore) {
  if (restore?.get("fight")) showPastFight(section, restore.get("fight"));
  const form = section.querySelector("form[data-plan]");
  if (!form) return;
  form.dataset.fight = restore?.get("fight") || "";
  form.dataset.version = document.getElementById("panel-title")?.dataset.version || table.dataset.version;
  if (restore) restorePlan(section, form, restore);
  const feed = (form._feed = oddsFeed(section, form, table));

  form.querySelectorAll(".slider").forEach((s) => {
    const range = s.querySelector("input[type=range]");
    const number = s.querySelector("input.mirror");
    range.addEventListener("input", () => { number.value = range.value; });
    number.addEventListener("input", () => {
      range.value = Math.max(0, Math.min(+range.max, Math.round(+number.value || 0)));
    });
    number.addEventListener("change", () => { number.value = range.value; });
  });
  form.addEventListener("input", () => feed.want());
  form.addEventListener("change", () => feed.want());
  // Enter in a box takes its value and nothing more: only the Fight button fights (it
  // is no submit button, and the form never submits).
  section.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || e.target.closest("form[data-answer]")) return;
    if (e.target.matches("input, select")) {
      e.preventDefault();
      if (e.target.classList.contains("mirror")) e.target.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });
  form.addEventListener("submit", (e) => e.preventDefault());
  section.addEventListener("click", async (e) => {
    const b = e.target.closest("button[data-action]");
    if (b && b.dataset.action === "need") need(section, form, b, feed);
    else if (b && b.dataset.action === "play") play(section, form, b, feed);
    else if (b && b.dataset.action === "fight" && !b.disabled) {
      if (await confirmFight(section, form, table)) await fight(section, form, formQuery(form), table);
    }
    const use = e.target.closest("button[data-use-mil]");
    if (use) {
      for (const [key, n] of Object.entries(JSON.parse(use.dataset.useMil))) {
        const range = form.querySelector(`input[type=range][name="mil.${CSS.escape(key)}"]`);
        if (range) { range.value = n; range.closest(".slider").querySelector(".mirror").value = n; }
      }
      feed.want();
    }
  });
  feed.want();
}

// The odds of a plan as its controls move. Throttled, not debounced: a change is asked
// for at once when nothing is on its way, else it waits for the answer in flight and
// only the latest wish is sent (the ones it overtook never are). The figures shown are
// greyed while newer ones are being worked out; leaving the plan aborts its request.
function oddsFeed(section, form, table) {
  const head = section.querySelector(".odds");
  const more = section.querySelector(".odds-more");
  let wanted = null, shown = null, inflight = null, stopped = false;
  const since = new Map();  // a plan's query -> when a control first asked for it
  const grey = () => head.querySelector(".odds-box")?.classList.toggle("stale", wanted !== shown);

  const want = () => {
    table._map.setPlan(planOnMap(form, table._map));
    wanted = planQuery(form).toString();
    if (!since.has(wanted)) since.set(wanted, performance.now());
    grey();
    pump();
  };
  const pump = async () => {
    if (stopped || inflight || wanted === null || wanted === shown) return;
    const q = wanted;
    inflight = new AbortController();
    let r;
    try {
      r = await fetchFragment(`/empire/odds?${q}`, { signal: inflight.signal });
    } catch (err) {
      if (err.name !== "AbortError") head.innerHTML = `<p class="error" role="alert">No answer from the server (${err.message}).</p>`;
      return;
    } finally {
      inflight = null;
    }
    if (stopped || !form.isConnected) return;
    shown = q;
    clearErrors(form);
    if (!r.ok) showError(form, head, r.html);
    else render(r.html, q);
    grey();
    pump();
  };
  const render = (html, q) => {
    const tmp = document.createElement("template");
    tmp.innerHTML = html;
    const box = tmp.content.querySelector(".odds-box");
    head.replaceChildren(box);
    more.replaceChildren(...tmp.content.querySelectorAll(".odds-detail"));
    const now = performance.now(), ms = Math.round(now - (since.get(q) ?? now));
    for (const key of [...since.keys()]) if (key === q || key !== wanted) since.delete(key);
    box.dataset.latency = ms;
    more.querySelector(".latency")?.replaceChildren(`Shown ${ms} ms after the change.`);
    form.dataset.updates = (+form.dataset.updates || 0) + 1;
    timings.odds.push({ ms, at: Math.round(now) });
    if (table._pickedAt) {
      timings.clickToOdds.push(Math.round(now - table._pickedAt));
      table._pickedAt = 0;
    }
    keepInUrl(table, urlOfPlan(table, form));
    section.dispatchEvent(new CustomEvent("bellum:odds", { bubbles: true, detail: { ms } }));
  };
  return {
    want,
    stop: () => { stopped = true; inflight?.abort(); },
    forget: () => { shown = null; },
  };
}

// Where a plan's force comes from, for the map: the sectors and ships whose mil go, the
// land units that go, a paradrop's assembly point; and the sector it goes to.
function planOnMap(form, map) {
  const where = (list, id) => list.find((t) => String(t.uid) === String(id))?.key;
  const sources = [];
  for (const range of form.querySelectorAll("input[type=range]")) {
    if (+range.value <= 0) continue;
    const key = range.name.slice("mil.".length);
    sources.push(key.startsWith("ship:") ? where(map.data.ships, key.slice(5)) : key);
  }
  for (const box of form.querySelectorAll("input[name=unit]:checked")) sources.push(where(map.data.units, box.value));
  const source = form.elements.source.value;
  if (source.startsWith("ship:")) sources.push(where(map.data.ships, source.slice(5)));
  else if (source) sources.push(source);
  const target = document.getElementById("panel-title")?.dataset.at || form.elements.target.value;
  return { target, sources: [...new Set(sources.filter(Boolean))] };
}

// A long request keeps its button busy and says how long it has been working, next to it.
function busy(button, out, text) {
  const label = button.textContent;
  const started = performance.now();
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  out.innerHTML = `<p class="note working" role="status">${text} <span class="elapsed">0 s</span></p>`;
  const tick = setInterval(() => {
    const s = Math.round((performance.now() - started) / 1000);
    out.querySelector(".elapsed")?.replaceChildren(`${s} s`);
    button.textContent = `${label.replace(/…$/, "")} (${s} s)…`;
  }, 1000);
  return () => {
    clearInterval(tick);
    button.textContent = label;
    button.disabled = false;
    button.removeAttribute("aria-busy");
  };
}

async function need(section, form, button, feed) {
  const out = section.querySelector(".need");
  const done = busy(button, out, "Searching for the least force that gives 90 %…");
  const r = await fetchFragment(`/empire/need?${formQuery(form)}`).finally(done);
  if (!r.ok) { showError(form, out, r.html); return; }
  out.innerHTML = r.html;
}

async function play(section, form, button, feed) {
  const out = section.querySelector(".need");
  const done = busy(button, out, "Playing the real command 100 times…");
  const r = await fetchFragment(`/empire/play?${formQuery(form)}`).finally(done);
  if (!r.ok) { showError(form, out, r.html); return; }
  out.innerHTML = "";
  const tmp = document.createElement("template");
  tmp.innerHTML = r.html;
  section.querySelector(".odds").replaceChildren(...tmp.content.querySelectorAll(".odds-box"));
  section.querySelector(".odds-more").replaceChildren(...tmp.content.querySelectorAll(".odds-detail"));
  feed.forget();  // the next change asks the planner again
}

// Before a fight is written to a database (or when the plan is stale), the exact order
// and its force are shown, and nothing happens unless the player says so.
async function confirmFight(section, form, table) {
  const stale = form.dataset.version !== table.dataset.version;
  if (table.dataset.writes !== "1" && !stale) return true;
  const r = await fetchFragment(`/empire/order?${formQuery(form)}`);
  if (!r.ok) { showError(form, section.querySelector(".need"), r.html); return false; }
  const dialog = document.getElementById("confirm");
  dialog.querySelector(".body").innerHTML = r.html;
  dialog.querySelector(".stale-warning").hidden = !stale;
  dialog.returnValue = "";
  dialog.showModal();
  dialog.querySelector("button[value=cancel]").focus();
  await new Promise((ok) => dialog.addEventListener("close", ok, { once: true }));
  return dialog.returnValue === "fight";
}

async function fight(section, form, body, table) {
  const out = section.querySelector(".fight-out");
  const button = section.querySelector("button.fight");
  if (button) button.disabled = true;
  out.innerHTML = `<p class="note working" role="status">Fighting…</p>`;
  const r = await fetchFragment("/empire/fight", {
    method: "POST", body, headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  if (button) button.disabled = false;
  if (!r.ok) {
    out.innerHTML = r.html;
    if (r.status === 409) await worldChanged(table);  // show the world the answer missed
    return;
  }
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
      fight(section, form, next, table);
    });
    answer.querySelector("input[name=answer]:not([type=hidden])").focus();
  }
  const pre = result.querySelector("pre.transcript");
  out._shown = answer ? pre.textContent : "";
  await typeOut(pre, shown);
  if (answer) return;
  form.dataset.fight = result.dataset.id;
  keepInUrl(table, urlOfPlan(table, form));
  if (result.dataset.changed === "1") await worldChanged(table);
  result.querySelector(".outcome")?.setAttribute("tabindex", "-1");
  result.querySelector(".outcome")?.focus();
}

async function showPastFight(section, id) {
  const r = await fetchFragment(`/empire/history/${encodeURIComponent(id)}`);
  if (!r.ok) return;
  const out = section.querySelector(".fight-out");
  out.innerHTML = r.html;
  out.querySelector("pre.transcript").dataset.done = "1";
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

// The world changed (a fight here or elsewhere): redraw the map, refresh the header,
// and mark the plans on the panel as made on the old world.
async function worldChanged(table) {
  const r = await fetchFragment(`/empire/map?as=${table.dataset.as}`);
  if (!r.ok) return;
  const tmp = document.createElement("template");
  tmp.innerHTML = r.html;
  const { data, version } = readMapData(tmp.content);
  table._map.load(data);
  table.dataset.version = version;
  const stat = document.querySelector("header .stat");
  if (stat) stat.textContent = `$${data.country.money.toLocaleString("en-US")} · ${data.country.btu} BTU`;
  markStale(table);
}

function markStale(table) {
  for (const form of document.querySelectorAll("#panel form[data-plan]")) {
    const stale = form.dataset.version !== table.dataset.version;
    const section = form.closest(".way");
    section.classList.toggle("stale-plan", stale);
    section.querySelectorAll(".odds-box").forEach((b) => b.classList.toggle("stale", stale));
    if (stale && !section.querySelector(".stale-note")) {
      section.querySelector(".odds").insertAdjacentHTML("beforebegin",
        '<p class="stale-note" role="status"><span class="tag">stale</span> The world changed since this plan was made. <button type="button" data-replan>Plan again</button></p>');
    }
  }
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

// "x,y" as a player types it (spaces allowed) and within the world as the country sees
// it: x from -W/2 to W/2-1, y likewise, x + y even.  Empire would wrap 999,999 round the
// world; a typing slip should be said, not silently moved.
function parseSector(text, W, H) {
  const m = text.replace(/\s+/g, "").match(/^(-?\d{1,6}),(-?\d{1,6})$/);
  if (!m) return { error: `'${text.trim()}' is not a sector: type x,y (such as 2,0)` };
  const x = +m[1], y = +m[2];
  if (x < -W / 2 || x >= W / 2 || y < -H / 2 || y >= H / 2) {
    return { error: `${x},${y} is off the map: x runs from ${-W / 2} to ${W / 2 - 1}, y from ${-H / 2} to ${H / 2 - 1}` };
  }
  if ((x + y) % 2) return { error: `${x},${y} is not a sector: x + y is even on an Empire map` };
  return { key: `${x},${y}` };
}

// ---------------------------------------------------------------- the turn plan and threats
//
// "Plan the turn" asks the turn planner (docs/plan.md) for the whole turn: the panel lists
// each attack with a box to accept or reject it, and the map's "turnplan" layer draws an
// arrow from every source of an accepted attack to its target, with its P(win) on it.
// "Threats" shades each of your sectors by the likeliest strike on it (a heat map layer).

function mapKey(map, key) {
  const where = (list, id) => list.find((t) => String(t.uid) === String(id))?.key;
  if (key.startsWith("ship:")) return where(map.data.ships, key.slice(5));
  if (key.startsWith("unit:")) return where(map.data.units, key.slice(5));
  return key;
}

function pctText(p) { return `${(100 * p).toFixed(p > 0.995 && p < 1 ? 1 : 0)}%`; }

function drawTurnPlan(map, attacks) {
  map.addLayer("turnplan", 12, (ctx, api) => {
    for (const a of attacks) {
      if (!a.accepted) continue;
      const to = mapKey(map, a.at);
      for (const src of a.sources) {
        const from = mapKey(map, src);
        if (!from || !to || from === to) continue;
        api.arrow(ctx, from, to, { colour: "#fff", width: Math.max(4, api.r * 0.26) });
        api.arrow(ctx, from, to, { colour: "#0072b2" });
        const [vx, vy] = map.toMap(map.cw / 2, map.ch / 2);
        const tt = map.nearest(to, vx, vy), ff = tt && map.nearest(from, ...tt);
        if (!ff) continue;
        const [x1, y1] = map.toScreen(...ff), [x2, y2] = map.toScreen(...tt);
        const label = pctText(a.p_success), px = Math.max(10, api.r * 0.5);
        ctx.font = `700 ${px.toFixed(1)}px "DejaVu Sans", sans-serif`;
        ctx.textAlign = "center"; ctx.textBaseline = "middle";
        const mx = (x1 + x2) / 2, my = (y1 + y2) / 2, w = ctx.measureText(label).width + 6;
        ctx.fillStyle = "rgba(255,255,255,.9)"; ctx.fillRect(mx - w / 2, my - px * 0.65, w, px * 1.3);
        ctx.fillStyle = "#0b3d66"; ctx.fillText(label, mx, my);
      }
    }
  });
}

async function showTurnPlan(table, button) {
  const panel = document.getElementById("panel");
  const map = table._map;
  button.disabled = true;
  panel.setAttribute("aria-busy", "true");
  const r = await fetchFragment(`/empire/turnplan?as=${table.dataset.as}`);
  panel.innerHTML = r.html;
  panel.removeAttribute("aria-busy");
  button.disabled = false;
  const node = document.getElementById("turnplan-data");
  if (!r.ok || !node) { map.addLayer("turnplan", 12, null); return; }
  const attacks = JSON.parse(node.textContent).waves.flatMap((w) => w.attacks);
  attacks.forEach((a) => { a.accepted = true; });
  panel.dataset.loaded = "turnplan";
  drawTurnPlan(map, attacks);
  panel.querySelector(".turnplan").addEventListener("change", (e) => {
    const box = e.target.closest("input[name=accept]");
    if (!box) return;
    const section = box.closest(".turnplan");
    // Indices count within a wave's table; the data lists every wave's attacks in order.
    const tables = [...section.querySelectorAll("table.turnplan-table")];
    const offset = tables.slice(0, tables.indexOf(box.closest("table"))).reduce((n, t) => n + t.tBodies[0].rows.length, 0);
    const i = offset + Number(box.value);
    attacks[i].accepted = box.checked;
    box.closest("tr").classList.toggle("rejected", !box.checked);
    const orders = [...section.querySelectorAll("pre.orders")];
    const order = orders[tables.indexOf(box.closest("table"))]?.querySelector(`[data-attack="${box.value}"]`);
    if (order) order.hidden = !box.checked;
    map.schedule();
  });
}

async function toggleThreats(table, button) {
  const map = table._map;
  if (button.getAttribute("aria-pressed") === "true") {
    button.setAttribute("aria-pressed", "false");
    map.addLayer("threats", 5, null);
    return;
  }
  button.disabled = true;
  const panel = document.getElementById("panel");
  const r = await fetchFragment(`/empire/threats?as=${table.dataset.as}`);
  button.disabled = false;
  panel.innerHTML = r.html;
  panel.dataset.loaded = "threats";
  const node = document.getElementById("threats-data");
  if (!r.ok || !node) return;
  const heat = new Map();
  for (const t of JSON.parse(node.textContent).threats) {
    const key = mapKey(map, t.at);
    if (key) heat.set(key, Math.max(heat.get(key) || 0, t.p_success));
  }
  button.setAttribute("aria-pressed", "true");
  map.addLayer("threats", 5, (ctx, api) => {
    for (const [key, p] of heat) {
      for (const q of api.positions(key)) {
        ctx.beginPath(); api.hex(ctx, q.x, q.y, 0.95);
        ctx.fillStyle = `rgba(213, 0, 0, ${(0.12 + 0.68 * p).toFixed(3)})`; ctx.fill();
        if (api.r >= 9) {
          ctx.font = `700 ${(0.42 * api.r).toFixed(1)}px "DejaVu Sans", sans-serif`;
          ctx.textAlign = "center"; ctx.textBaseline = "middle";
          ctx.fillStyle = p > 0.5 ? "#fff" : "#400"; ctx.fillText(pctText(p), q.x, q.y + 0.05 * api.r);
        }
      }
    }
  });
}

// ---------------------------------------------------------------- start

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("select[data-autosubmit]").forEach(autosubmit);
  const table = document.querySelector(".table.em");
  if (table) {
    const { data, version } = readMapData(document);
    table.dataset.version = version;
    const map = (table._map = new EmpireMap(document.getElementById("map"), data, (kind, id) => pick(table, kind, id)));
    window.bellum = { map, timings };
    document.querySelector(".toolbar").addEventListener("click", (e) => {
      const plan = e.target.closest("button[data-turnplan]");
      if (plan) { showTurnPlan(table, plan); return; }
      const threats = e.target.closest("button[data-threats]");
      if (threats) { toggleThreats(table, threats); return; }
      const b = e.target.closest("button[data-zoom]");
      if (!b) return;
      if (b.dataset.zoom === "in") map.zoom(1.4);
      else if (b.dataset.zoom === "out") map.zoom(1 / 1.4);
      else map.setView(map.wholeWorld());
    });
    const goto = document.querySelector("form[data-goto]");
    goto.addEventListener("submit", (e) => {
      e.preventDefault();
      const found = parseSector(goto.elements.id.value, map.W, map.H);
      goto.querySelector(".err").textContent = found.error || "";
      goto.elements.id.setAttribute("aria-invalid", found.error ? "true" : "false");
      if (found.key) { goto.elements.id.value = found.key; pick(table, "sector", found.key); }
    });
    document.getElementById("panel").addEventListener("click", (e) => {
      const b = e.target.closest("button[data-pick]");
      if (b) pick(table, b.dataset.kind, b.dataset.id);
      if (e.target.closest("button[data-replan]") && table._target) {
        pick(table, table._target.kind, table._target.id);
      }
    });
    const start = new URLSearchParams(location.search);
    if (table.dataset.target) pick(table, table.dataset.kind || "sector", table.dataset.target, start);
  }
  const pz = document.querySelector(".pz-table");
  if (pz && window.bellumPanzer) window.bellumPanzer(pz);
});

// ---------------------------------------------------------------- Panzer

window.bellumPanzer = (table) => {
  const form = document.getElementById("pz-form");
  const planBox = document.getElementById("pz-plan");
  const resultBox = document.getElementById("pz-result");
  const explainBox = document.getElementById("pz-explain");
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
    planBox.querySelector(".odds-box")?.classList.add("stale");
    resultBox.innerHTML = "";
    planBox.setAttribute("aria-busy", "true");
    const r = await fetchFragment(`/panzer/plan?${query(pickAll)}`);
    const tmp = document.createElement("template");
    tmp.innerHTML = r.html;
    const head = tmp.content.querySelector(".pz-head");
    planBox.replaceChildren(...(head ? [head] : tmp.content.childNodes));
    explainBox.replaceChildren(...tmp.content.querySelectorAll(".pz-detail"));
    planBox.removeAttribute("aria-busy");
    table.dataset.plans = (+table.dataset.plans || 0) + 1;
    markAttackers();
  };
  table.querySelector("button[data-whole]").addEventListener("click", () => {
    const svg = wrap.querySelector("svg");
    svg.setAttribute("viewBox", svg.dataset.full);
  });
  form.addEventListener("submit", (e) => e.preventDefault());  // Enter never reloads or resolves
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
