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
  const ways = [...panel.querySelectorAll("details.way")];
  const chosen = restore && ways.find((s) => s.dataset.command === restore.get("command")
    && s.dataset.source === (restore.get("source") || ""));
  // The ways' first odds one after the other, the open way's first: asked all at once
  // they would share the server's cores and each come later.
  const feeds = ways.map((section) => setupWay(section, table, section === chosen ? restore : null))
    .filter(Boolean).sort((a, b) => b.section.open - a.section.open);
  const next = (i) => {
    if (i >= feeds.length) return;
    let started = false;
    const go = () => { if (!started) { started = true; next(i + 1); } };
    feeds[i].section.addEventListener("bellum:answered", go, { once: true });
    setTimeout(go, 1500);  // a slow way does not hold the others back for long
    feeds[i].want();
  };
  next(0);
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
  if (q.get("move_in")) form.elements.move_in.value = q.get("move_in");
  if (["yes", "move_in", "move_in_unit", "no_move_in_units"].some((k) => q.get(k))) {
    form.querySelector("details.answers").open = true;
  }
  if (q.has("profile")) form.elements.profile.value = q.get("profile");
  if (q.get("options")) { form.elements.options.value = q.get("options"); form.querySelector("details.rules").open = true; }
  if (q.has("seed")) form.elements.seed.value = q.get("seed");
}

// A way's controls wired to its odds, the map and the fight; its feed (the caller asks
// for its first odds).
function setupWay(section, table, restore) {
  if (restore?.get("fight")) showPastFight(section, restore.get("fight"));
  const form = section.querySelector("form[data-plan]");
  if (!form) return null;
  form.dataset.fight = restore?.get("fight") || "";
  form.dataset.version = document.getElementById("panel-title")?.dataset.version || table.dataset.version;
  if (restore) restorePlan(section, form, restore);
  // The map draws the plan of the way last touched (the open one, to begin with); one
  // way is open at a time.
  if (restore) section.open = true;
  if (section.open && !table._activeWay?.isConnected) table._activeWay = section;
  const touched = () => {
    table._activeWay = section;
    table._map.setPlan(planOnMap(form, table._map));
  };
  section.addEventListener("focusin", touched);
  section.addEventListener("toggle", () => {
    if (!section.open) return;
    touched();
    form._feed.want();  // opened before its turn: its odds now
    for (const other of document.querySelectorAll("#panel details.way[open]:not(.refused)")) {
      if (other !== section) other.open = false;
    }
  });
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
  // "no unit joins" and "none" move in: a box that says none clears the boxes it is
  // the none of, and any of them clears it, as the command takes one or the other.
  form.addEventListener("input", (e) => {
    const box = e.target;
    if (box.type !== "checkbox" || !box.checked) return;
    if (box.dataset.noneOf) {
      form.querySelectorAll(`input[name="${box.dataset.noneOf}"]:not(:disabled)`).forEach((b) => { b.checked = false; });
    } else {
      const none = form.querySelector(`input[data-none-of="${box.name}"]`);
      if (none) none.checked = false;
    }
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
  return feed;
}

// An answer that follows a question as it changes (the odds of a plan while its controls
// move). Throttled, not debounced: a change is asked at once when nothing is on its way,
// else it waits for the answer in flight and only the latest question is sent (the ones
// it overtook never are). busy(true) while the answer shown is not the latest question's;
// stop() aborts the request in flight (the question left the page).
function liveFeed({ question, ask, show, busy }) {
  let wanted = null, shown = null, inflight = null, stopped = false;
  const since = new Map();  // a question -> when it was first asked

  const want = () => {
    wanted = question();
    if (!since.has(wanted)) since.set(wanted, performance.now());
    busy(wanted !== shown);
    pump();
  };
  const pump = async () => {
    if (stopped || inflight || wanted === null || wanted === shown) return;
    const q = wanted;
    inflight = new AbortController();
    let r;
    try {
      r = await ask(q, inflight.signal);
    } catch (err) {
      if (err.name === "AbortError") return;
      r = { ok: false, status: 0, html: `<p class="error" role="alert">No answer from the server (${err.message}).</p>` };
    } finally {
      inflight = null;
    }
    if (stopped) return;
    shown = q;
    const now = performance.now(), ms = Math.round(now - (since.get(q) ?? now));
    for (const key of [...since.keys()]) if (key === q || key !== wanted) since.delete(key);
    show(r, ms);
    busy(wanted !== shown);
    pump();
  };
  return {
    want,
    stop: () => { stopped = true; inflight?.abort(); },
    forget: () => { shown = null; },
  };
}

// A fragment's parts moved to their places: {".odds-box": element, ...}.
function place(html, slots) {
  const tmp = document.createElement("template");
  tmp.innerHTML = html;
  for (const [selector, slot] of Object.entries(slots)) slot.replaceChildren(...tmp.content.querySelectorAll(selector));
}

// The odds of a plan as its controls move (a liveFeed), drawn on the map as they change.
function oddsFeed(section, form, table) {
  const head = section.querySelector(".odds");
  const more = section.querySelector(".odds-more");
  const feed = liveFeed({
    question: () => {
      if (table._activeWay === section) table._map.setPlan(planOnMap(form, table._map));
      return planQuery(form).toString();
    },
    ask: (q, signal) => fetchFragment(`/empire/odds?${q}`, { signal }),
    busy: (on) => head.querySelector(".odds-box")?.classList.toggle("stale", on),
    show: (r, ms) => {
      if (!form.isConnected) return;
      clearErrors(form);
      form.dataset.updates = (+form.dataset.updates || 0) + 1;  // answers shown, errors too
      section.dispatchEvent(new Event("bellum:answered"));
      if (!r.ok) { showError(form, head, r.html); return; }
      place(r.html, { ".odds-box": head, ".odds-detail": more });
      section.querySelector(".way-p").textContent = `${head.querySelector(".p").textContent} to win`;
      head.querySelector(".odds-box").dataset.latency = ms;
      more.querySelector(".latency")?.replaceChildren(`Shown ${ms} ms after the change.`);
      const now = performance.now();
      timings.odds.push({ ms, at: Math.round(now) });
      if (table._pickedAt) {
        timings.clickToOdds.push(Math.round(now - table._pickedAt));
        table._pickedAt = 0;
      }
      keepInUrl(table, urlOfPlan(table, form));
    },
  });
  return { ...feed, section };
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
  place(r.html, { ".odds-box": section.querySelector(".odds"), ".odds-detail": section.querySelector(".odds-more") });
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
  showHeader(data.country);
  markStale(table);
}

function showHeader({ money, btu }) {
  const stat = document.querySelector("header .stat");
  if (stat) stat.textContent = `$${money.toLocaleString("en-US")} · ${btu} BTU`;
}

// The server says when the world changes (a fight in another tab, or another program
// writing the database): the map and the header follow, and the plans made before are
// marked stale.  EventSource reconnects by itself after a dropped connection.
function listen(table) {
  if (!window.EventSource) return;
  const source = (window.bellum.events = new EventSource(`/empire/events?as=${encodeURIComponent(table.dataset.as)}`));
  source.addEventListener("world", (e) => {
    const d = JSON.parse(e.data);
    showHeader(d);
    if (String(d.version) !== table.dataset.version) worldChanged(table);
  });
  window.addEventListener("pagehide", () => source.close());
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

// An error that names a control ("mil.0,0: ...", "unit.7: ...", "options") goes next to it.
function showError(form, fallback, html) {
  const tmp = document.createElement("div");
  tmp.innerHTML = html;
  const text = tmp.textContent.trim();
  let m = text.match(/^mil\.(\S+?):/);
  let place = m && form.querySelector(`[data-control="mil.${CSS.escape(m[1])}"] .err`);
  if (!place && (m = text.match(/^unit\.(\d+):/))) place = form.querySelector(`[data-control="unit.${m[1]}"] .err`);
  if (!place && /option|profile/i.test(text)) place = form.querySelector(`[data-control="options"] .err`);
  if (!place && (m = text.match(/^(move_in|move_in_unit):/))) place = form.querySelector(`[data-control="${m[1]}"] .err`);
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
    listen(table);
    const start = new URLSearchParams(location.search);
    if (table.dataset.target) pick(table, table.dataset.kind || "sector", table.dataset.target, start);
  }
  const pz = document.querySelector(".pz-table");
  if (pz && window.bellumPanzer) window.bellumPanzer(pz);
  const calc = document.querySelector(".calc-table");
  if (calc && window.bellumCalculator) window.bellumCalculator(calc);
});
