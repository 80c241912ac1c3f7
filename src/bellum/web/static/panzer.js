// bellum planning table: the Panzer Campaigns views (after bellum.js, whose helpers
// fetchFragment, liveFeed and place it uses).
"use strict";

// Pan and zoom an SVG through its viewBox: wheel, drag, and + - 0 and the arrows when it
// has the focus.  onClick(event) gets the clicks that were not drags.
function svgPanZoom(svg, onClick) {
  const full = svg.dataset.full.split(" ").map(Number);
  let v = svg.getAttribute("viewBox").split(" ").map(Number);  // x, y, w, h
  const apply = () => svg.setAttribute("viewBox", v.map((n) => n.toFixed(2)).join(" "));
  const toMap = (clientX, clientY) => {
    const r = svg.getBoundingClientRect();
    const s = Math.max(v[2] / r.width, v[3] / r.height);  // preserveAspectRatio "meet"
    const ox = (r.width * s - v[2]) / 2, oy = (r.height * s - v[3]) / 2;
    return { x: v[0] - ox + (clientX - r.left) * s, y: v[1] - oy + (clientY - r.top) * s, s };
  };
  const zoom = (factor, cx = v[0] + v[2] / 2, cy = v[1] + v[3] / 2) => {
    const w = Math.min(full[2] * 1.5, Math.max(full[2] / 12, v[2] * factor)), k = w / v[2];
    v = [cx - (cx - v[0]) * k, cy - (cy - v[1]) * k, w, v[3] * k];
    apply();
  };
  svg.addEventListener("wheel", (e) => {
    e.preventDefault();
    const p = toMap(e.clientX, e.clientY);
    zoom(Math.exp(e.deltaY * 0.0015), p.x, p.y);
  }, { passive: false });
  let drag = null;
  svg.addEventListener("pointerdown", (e) => {
    if (e.button === 0) drag = { x: e.clientX, y: e.clientY, v: [...v], moved: false, id: e.pointerId };
  });
  svg.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 4) return;
    if (!drag.moved) { drag.moved = true; svg.setPointerCapture(drag.id); svg.classList.add("dragging"); }
    const s = toMap(0, 0).s;
    v = [drag.v[0] - dx * s, drag.v[1] - dy * s, drag.v[2], drag.v[3]];
    apply();
  });
  const end = (e) => {
    if (!drag) return;
    const click = !drag.moved && e.type === "pointerup";
    drag = null;
    svg.classList.remove("dragging");
    if (click) onClick(e);
  };
  svg.addEventListener("pointerup", end);
  svg.addEventListener("pointercancel", end);
  svg.addEventListener("keydown", (e) => {
    const pans = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (e.target !== svg && e.key.startsWith("Arrow")) return;
    if (e.key in pans) { v = [v[0] + pans[e.key][0] * v[2] / 8, v[1] + pans[e.key][1] * v[3] / 8, v[2], v[3]]; apply(); }
    else if (e.key === "+" || e.key === "=") zoom(1 / 1.25);
    else if (e.key === "-") zoom(1.25);
    else if (e.key === "0") { v = [...full]; apply(); }
    else return;
    e.preventDefault();
  });
  return {
    zoom,
    whole: () => { v = [...full]; apply(); },
    get view() { return [...v]; },
    set view(w) { v = [...w]; apply(); },
  };
}

// ---------------------------------------------------------------- the battlefield

window.bellumPanzer = (table) => {
  const form = document.getElementById("pz-form");
  const planBox = document.getElementById("pz-plan");
  const resultBox = document.getElementById("pz-result");
  const explainBox = document.getElementById("pz-explain");
  const wrap = document.getElementById("map-wrap");
  const calc = document.getElementById("pz-calc");
  const before = wrap.innerHTML;
  let resolved = false;  // the map shows the state after a resolve
  let first = JSON.parse(table.dataset.units || "[]");
  let pickAll = false;
  let map = null;

  // The map (again after a resolve replaced it), keeping the view it had.
  const attach = () => {
    const svg = wrap.querySelector("svg");
    const view = map?.view;
    map = svgPanZoom(svg, click);
    if (view) map.view = view;
    svg.querySelectorAll(".stack").forEach((s) => s.setAttribute("tabindex", "0"));
    table._map = map;
  };
  const chosen = () => [...planBox.querySelectorAll("input[name=unit]:checked")].map((c) => c.value);
  const markAttackers = () => {
    const units = new Set(chosen());
    wrap.querySelectorAll(".counter").forEach((g) => g.classList.toggle("attacking", units.has(g.dataset.unit)));
    wrap.querySelectorAll(".stack").forEach((s) => s.classList.toggle("attacking", !!s.querySelector(".counter.attacking")));
  };
  const question = () => {
    const q = new URLSearchParams({ target: form.target.value });
    if (first) first.forEach((u) => q.append("unit", u));
    else if (pickAll) q.set("pick", "all");
    else chosen().forEach((u) => q.append("unit", u));
    return q.toString();
  };
  const feed = liveFeed({
    question,
    ask: (q, signal) => fetchFragment(`/panzer/plan?${q}`, { signal }),
    busy: (on) => planBox.querySelector(".odds-box")?.classList.toggle("stale", on),
    show: (r) => {
      first = null;
      pickAll = false;
      place(r.html, { ".pz-head": planBox, ".pz-detail": explainBox });
      if (!r.ok) planBox.innerHTML = r.html;
      table.dataset.plans = (+table.dataset.plans || 0) + 1;
      markAttackers();
      const q = new URLSearchParams({ target: form.target.value });
      chosen().forEach((u) => q.append("unit", u));
      calc.href = `/panzer/calculator?${q}`;
      history.replaceState(null, "", `/panzer?${q}`);
    },
  });
  const load = (all) => {
    if (!form.target.value) { planBox.innerHTML = '<p class="note">Choose the hex to assault.</p>'; return; }
    if (resolved) { wrap.innerHTML = before; resolved = false; attach(); }
    pickAll = all;
    markAttackers();  // the units just chosen, while their odds come
    resultBox.innerHTML = "";
    feed.want();
  };
  const closeStacks = (except) => wrap.querySelectorAll(".stack.open").forEach((s) => { if (s !== except) s.classList.remove("open"); });

  // A click on a stack spreads it (a second one gathers it). A stack outside the assault
  // becomes its target; in a spread, a counter that may assault is taken in or left out.
  function click(e) {
    const stack = e.target.closest(".stack");
    closeStacks(stack);
    if (!stack) return;
    const spread = e.target.closest(".spread .counter");
    const box = spread && planBox.querySelector(`input[name=unit][value="${CSS.escape(spread.dataset.unit)}"]:not(:disabled)`);
    if (box) { box.checked = !box.checked; load(false); return; }
    if (+stack.dataset.count > 1 && !spread) stack.classList.toggle("open");
    stack.parentNode.appendChild(stack);  // on top of its neighbours
    const key = stack.dataset.hex;
    const inAssault = key === form.target.value || stack.classList.contains("attacking");
    if (!inAssault && [...form.target.options].some((o) => o.value === key)) {
      form.target.value = key;
      load(true);
    }
  }
  wrap.addEventListener("keydown", (e) => {
    if (e.key === "Escape") closeStacks(null);
    const stack = e.target.closest?.(".stack");
    if (stack && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); click({ target: stack }); }
  });

  table.querySelector(".toolbar").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-zoom]");
    if (!b) return;
    if (b.dataset.zoom === "in") map.zoom(1 / 1.4);
    else if (b.dataset.zoom === "out") map.zoom(1.4);
    else map.whole();
  });
  form.addEventListener("submit", (e) => e.preventDefault());  // Enter never reloads or resolves
  form.target.addEventListener("change", () => load(true));
  planBox.addEventListener("change", () => load(false));
  form.querySelector("button[data-action=resolve]").addEventListener("click", async () => {
    const q = new URLSearchParams({ target: form.target.value, seed: form.seed.value });
    chosen().forEach((u) => q.append("unit", u));
    const r = await fetchFragment(`/panzer/resolve?${q}`);
    resultBox.innerHTML = r.html;
    const after = resultBox.querySelector("template#pz-after");
    if (after) { wrap.innerHTML = after.innerHTML; resolved = true; attach(); }
    resultBox.querySelector(".outcome")?.setAttribute("tabindex", "-1");
    resultBox.querySelector(".outcome")?.focus();
  });
  attach();
  if (form.target.value) load(false);
};

// ---------------------------------------------------------------- the calculator

window.bellumCalculator = (root) => {
  const slot = document.getElementById("calc-form-slot");
  const head = document.getElementById("calc-head");
  const explain = document.getElementById("calc-explain");
  const fileErr = document.getElementById("calc-file-err");
  const form = () => document.getElementById("calc");
  const query = () => new URLSearchParams(new FormData(form())).toString();

  const feed = liveFeed({
    question: query,
    ask: (q, signal) => fetchFragment(`/panzer/calculator/odds?${q}`, { signal }),
    busy: (on) => head.querySelector(".odds-box")?.classList.toggle("stale", on),
    show: (r) => {
      root.dataset.updates = (+root.dataset.updates || 0) + 1;
      if (!r.ok) { head.innerHTML = r.html; explain.replaceChildren(); return; }
      place(r.html, { ".pz-head": head, ".pz-detail": explain });
    },
  });

  // Everything is delegated to the slot: a loaded scenario replaces the form inside it.
  slot.addEventListener("input", () => feed.want());
  slot.addEventListener("change", () => feed.want());
  slot.addEventListener("submit", (e) => e.preventDefault());
  slot.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && e.target.matches("input, select")) e.preventDefault();
  });
  slot.addEventListener("click", (e) => {
    const add = e.target.closest("button[data-add]");
    if (add) {
      const keys = [...form().querySelectorAll("tr[data-row]")].map((r) => +r.dataset.row);
      const k = Math.max(200, ...keys) + 1;
      const template = form().querySelector(`template[data-row="${add.dataset.add}"]`);
      const tbody = form().querySelector(`table[data-role="${add.dataset.add}"] tbody`);
      tbody.insertAdjacentHTML("beforeend", template.innerHTML.replaceAll("__K__", k));
      tbody.lastElementChild.querySelector("input").focus();
      feed.want();
    }
    const remove = e.target.closest("button[data-remove]");
    if (remove) {
      const row = remove.closest("tr");
      const next = row.nextElementSibling || row.previousElementSibling;
      const table = row.closest("table");
      row.remove();
      (next?.querySelector("input") || table.nextElementSibling)?.focus();
      feed.want();
    }
  });

  // Save: the scenario file the server writes from the form, as a download.
  root.querySelector("button[data-save]").addEventListener("click", () => {
    const a = document.createElement("a");
    a.href = `/panzer/calculator/scenario.toml?${query()}`;
    a.download = "";
    document.body.appendChild(a);
    a.click();
    a.remove();
  });
  // Load: the file's text to the server, which answers with the form filled in.
  document.getElementById("calc-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    e.target.value = "";
    fileErr.textContent = "";
    if (!file) return;
    if (file.size > 60 * 1024) { fileErr.textContent = `${file.name}: larger than 60 KB, not a scenario`; return; }
    const body = new URLSearchParams({ name: file.name, toml: await file.text() });
    const r = await fetchFragment("/panzer/calculator/load", {
      method: "POST", body, headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    if (!r.ok) {
      const tmp = document.createElement("div");
      tmp.innerHTML = r.html;
      fileErr.textContent = tmp.textContent.trim();
      return;
    }
    slot.innerHTML = r.html;
    root.dataset.loaded = file.name;
    form().querySelector("input, select")?.focus();
    feed.want();
  });
  feed.want();
};
