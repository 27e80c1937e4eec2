/// The dashboard page, served at `/dashboard`: plain HTML, CSS and JavaScript (no build step, no
/// CDN). It reads `/api/dashboard/*` and follows `/api/dashboard/events` (server-sent events) so a
/// run in progress fills in as its cells finish. Every text from the store is set with
/// `textContent`; the one HTML fragment it inserts (a cell's timeline) is escaped by the server.
enum DashboardPage {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Seamcheck lab dashboard</title>
    <style>
    :root { color-scheme: light dark; --muted: #777; }
    body { font: 14px/1.4 -apple-system, system-ui, sans-serif; margin: 0 auto; max-width: 1400px; padding: 10px; }
    h1 { font-size: 1.3em; margin: 0 0 6px; } h2 { font-size: 1.1em; margin: 16px 0 6px; }
    form, .row { display: flex; flex-wrap: wrap; gap: 6px; align-items: end; }
    label { font-size: .85em; color: var(--muted); display: flex; flex-direction: column; }
    input, select, button { font: inherit; padding: 4px 6px; border-radius: 5px; border: 1px solid #8886; }
    table { border-collapse: collapse; } td, th { padding: 2px 4px; border-bottom: 1px solid #8883; text-align: left; font-size: .85em; }
    .scroll { overflow-x: auto; max-width: 100%; }
    #grid th.case { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; max-height: 14em; font-weight: normal; }
    #grid td.v { width: 1.6em; height: 1.6em; text-align: center; cursor: pointer; color: #fff; font-weight: bold; font-size: .75em; }
    .seamless { background: #2e7d32; } .glitch { background: #f9a825; } .stall { background: #c62828; } .black { background: #222; }
    .failed { background: #6a1b9a; } .skipped { background: #9e9e9e; } .conforms { background: #2e7d32; } .deviates { background: #c62828; }
    .ignores { background: #ef6c00; }
    td.v.op { outline: 2px solid #0a6cff; outline-offset: -3px; }
    td.v.fresh { animation: fresh 2s ease-out; } @keyframes fresh { from { box-shadow: inset 0 0 0 4px #0af; } to { box-shadow: none; } }
    .fw { color: #b26a00; font-weight: bold; } .muted { color: var(--muted); }
    tr.worse td { background: #fdecea; color: #000; } tr.better td { background: #edf7ed; color: #000; }
    .bar { display: inline-block; width: 120px; height: 8px; background: #8883; vertical-align: middle; } .bar span { display: block; height: 8px; background: #0a6cff; }
    #detail { border-top: 1px solid #8886; margin-top: 12px; } #status { min-height: 1.3em; color: var(--muted); } #status.error { color: #c62828; }
    svg.timeline { max-width: 100%; height: auto; display: block; }
    .film { display: flex; gap: 4px; flex-wrap: wrap; } .film img { width: 160px; image-rendering: pixelated; }
    </style>
    </head>
    <body>
    <h1>Seamcheck lab dashboard</h1>
    <div id="status" role="status"></div>
    <h2>Runs</h2>
    <form id="filters">
      <label>station <select id="f-station"><option value="">(all)</option></select></label>
      <label>receiver <input id="f-receiver" size="12"></label>
      <label>class <input id="f-class" size="12"></label>
      <label>case (glob) <input id="f-case" size="12" placeholder="frame-rate*"></label>
      <label>from <input id="f-from" type="date"></label>
      <label>to <input id="f-to" type="date"></label>
      <button type="submit">Filter</button>
      <button type="button" id="show-latest">Newest per cell</button>
      <button type="button" id="compare" disabled>Compare the two ticked</button>
    </form>
    <div class="scroll"><table id="runs"><thead><tr><th></th><th>run</th><th>station</th><th>started</th><th>state</th><th>cells</th><th>receivers</th></tr></thead><tbody></tbody></table></div>
    <h2 id="grid-title">Newest verdict per receiver and case</h2>
    <div id="progress"></div>
    <div class="scroll"><table id="grid"></table></div>
    <p class="muted">Each cell: the measured verdict (S seamless, G glitch, X stall, B black, F failed, – skipped; behaviour cases C conforms, D deviates, I ignores); a blue ring: an operator's verdict, which wins in reports. Click a cell for its timeline.</p>
    <h2>Per class</h2>
    <div class="scroll"><table id="classes"></table></div>
    <section id="compare-view" hidden><h2 id="compare-title">Compare</h2><p id="compare-summary"></p>
      <div id="firmware"></div>
      <table id="changes"><thead><tr><th>change</th><th>receiver</th><th>class</th><th>case</th><th>what</th><th>before</th><th>after</th><th>firmware</th></tr></thead><tbody></tbody></table></section>
    <section id="detail"></section>
    <script>
    "use strict";
    const $ = (id) => document.getElementById(id);
    const LETTER = { seamless: "S", glitch: "G", stall: "X", black: "B", failed: "F", skipped: "–", conforms: "C", deviates: "D", ignores: "I" };
    const view = { run: null, grid: null, cells: new Map(), fresh: new Set() };
    function text(v) { return v === null || v === undefined ? "" : String(v); }
    function td(row, value, cls) { const c = row.insertCell(); c.textContent = text(value); if (cls) c.className = cls; return c; }
    function say(message, error) { $("status").textContent = message; $("status").className = error ? "error" : ""; }
    function key(station, receiver, caseId) { return JSON.stringify([station || null, receiver, caseId]); }
    function receiverLabel(r) { return r.receiver + (r.station ? " @ " + r.station : ""); }
    function eta(seconds) { if (seconds === null || seconds === undefined) return "?"; const m = Math.floor(seconds / 60), s = Math.round(seconds % 60); return (m ? m + " min " : "") + s + " s"; }
    async function getJSON(path) {
      const r = await fetch(path, { cache: "no-store" });
      const body = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(body.error || (path + ": HTTP " + r.status));
      return body;
    }
    function params(entries) { const p = new URLSearchParams(); for (const [k, v] of entries) if (v !== "" && v !== null && v !== undefined) p.set(k, v); return p.toString(); }

    async function loadRuns() {
      const q = params([["station", $("f-station").value], ["receiver", $("f-receiver").value], ["class", $("f-class").value],
                        ["case", $("f-case").value], ["from", $("f-from").value], ["to", $("f-to").value]]);
      try {
        const doc = await getJSON("/api/dashboard/runs" + (q ? "?" + q : ""));
        const select = $("f-station"), chosen = select.value;
        select.length = 1;
        for (const s of doc.stations) select.add(new Option(s === "" ? "(unknown station)" : s, s));
        select.value = chosen;
        const body = $("runs").tBodies[0]; body.textContent = "";
        for (const run of doc.runs) {
          const row = body.insertRow(); row.dataset.run = run.id;
          const tick = document.createElement("input"); tick.type = "checkbox"; tick.className = "pick"; tick.value = run.id;
          tick.onchange = () => { $("compare").disabled = document.querySelectorAll("input.pick:checked").length !== 2; };
          row.insertCell().appendChild(tick);
          const link = document.createElement("a"); link.href = "#run=" + encodeURIComponent(run.id); link.textContent = run.id;
          row.insertCell().appendChild(link);
          td(row, run.station); td(row, new Date(run.startedAt).toLocaleString()); td(row, run.state, "state-" + run.state);
          td(row, run.cellsDone + " / " + run.cellsTotal); td(row, run.receivers.join(", "));
        }
        if (!doc.runs.length) { const row = body.insertRow(); td(row, ""); td(row, "no run matches these filters"); }
        say("");
      } catch (e) { say("Runs: " + e.message, true); }
    }

    async function loadGrid() {
      const q = params([["run", view.run || "latest"], ["station", $("f-station").value]]);
      try { renderGrid(await getJSON("/api/dashboard/grid?" + q)); } catch (e) { say("Grid: " + e.message, true); }
    }

    function renderGrid(grid) {
      view.grid = grid; view.cells = new Map();
      $("grid-title").textContent = grid.run ? "Run " + grid.run.id + " (" + grid.run.state + ", " + grid.run.cellsDone + " of " + grid.run.cellsTotal + " cells)" : "Newest verdict per receiver and case";
      const table = $("grid"); table.textContent = "";
      const head = table.createTHead().insertRow(); const first = document.createElement("th"); first.textContent = "receiver"; head.appendChild(first);
      for (const c of grid.cases) { const th = document.createElement("th"); th.className = "case"; th.textContent = c; head.appendChild(th); }
      const body = table.createTBody();
      for (const r of grid.receivers) {
        const row = body.insertRow();
        const name = row.insertCell(); name.textContent = receiverLabel(r) + (r.deviceClass ? " (" + r.deviceClass + ")" : "");
        name.title = "software: " + softwareText(r.software);
        if (r.firmwareChanges.length) { const fw = document.createElement("span"); fw.className = "fw"; fw.textContent = " firmware changed: " + r.firmwareChanges.join(", "); name.appendChild(fw); }
        for (const c of grid.cases) { const cell = row.insertCell(); cell.className = "v empty"; view.cells.set(key(r.station, r.receiver, c), cell); }
      }
      for (const c of grid.cells) paintCell(c.measured, c.operatorVerdict, view.fresh.has(key(c.measured.station, c.measured.receiver, c.measured.caseId)));
      renderProgress(grid.progress);
      renderClasses(grid);
    }

    function softwareText(s) {
      if (!s) return "unknown";
      const parts = [["model", s.model], ["srcvers", s.sourceVersion], ["osvers", s.osVersion], ["fv", s.firmwareVersion], ["server-info srcvers", s.serverSourceVersion]];
      return parts.filter((p) => p[1]).map((p) => p[0] + " " + p[1]).join("; ") || "unknown";
    }

    function paintCell(m, operatorVerdict, fresh) {
      const cell = view.cells.get(key(m.station, m.receiver, m.caseId));
      if (!cell) return false;
      const shown = m.behaviour || m.verdict;
      cell.className = "v " + shown.replace(/[^a-z]/g, "") + (operatorVerdict ? " op" : "") + (fresh ? " fresh" : "");
      cell.textContent = LETTER[shown] || "?";
      cell.dataset.verdict = shown; cell.dataset.run = m.runId;
      cell.title = m.receiver + " / " + m.caseId + ": " + shown + (m.stallMs !== null && m.stallMs !== undefined ? " " + Math.round(m.stallMs) + " ms" : "")
        + (operatorVerdict ? "; operator: " + operatorVerdict : "") + "\n" + m.reason + "\nrun " + m.runId;
      cell.onclick = () => openCell(m);
      return true;
    }

    function renderProgress(progress) {
      const box = $("progress"); box.textContent = "";
      if (!progress || !progress.length) return;
      const table = document.createElement("table"); table.id = "progress-table";
      for (const p of progress) {
        const row = table.insertRow(); row.dataset.receiver = p.receiver;
        td(row, receiverLabel(p));
        const bar = document.createElement("span"); bar.className = "bar"; const fill = document.createElement("span");
        fill.style.width = Math.round(100 * p.done / Math.max(p.total, 1)) + "%"; bar.appendChild(fill); row.insertCell().appendChild(bar);
        td(row, p.done + " / " + p.total, "count"); td(row, p.etaSeconds === 0 ? "done" : "ETA " + eta(p.etaSeconds)); td(row, p.lastCase ? "last: " + p.lastCase : "");
      }
      box.appendChild(table);
    }

    function renderClasses(grid) {
      const table = $("classes"); table.textContent = "";
      const classes = [...new Set(grid.classes.map((c) => c.deviceClass))];
      if (!classes.length) return;
      const head = table.createTHead().insertRow(); td(head, "class");
      for (const c of grid.cases) { const th = document.createElement("th"); th.className = "case"; th.textContent = c; head.appendChild(th); }
      const body = table.createTBody();
      for (const k of classes) {
        const row = body.insertRow(); td(row, k);
        for (const c of grid.cases) {
          const found = grid.classes.find((x) => x.deviceClass === k && x.caseId === c);
          const cell = td(row, found ? LETTER[found.worst] || "?" : "", found ? "v " + found.worst : "v");
          if (found) cell.title = k + " / " + c + ": worst " + found.worst + " of " + found.receivers + " receiver(s): " + JSON.stringify(found.counts);
        }
      }
    }

    async function openCell(m) {
      const box = $("detail"); box.textContent = "";
      const h = document.createElement("h2"); h.textContent = m.caseId + " on " + receiverLabel(m) + " — run " + m.runId; box.appendChild(h);
      const q = params([["run", m.runId], ["receiver", m.receiver], ["case", m.caseId], ["station", m.station === null ? "" : m.station]]);
      try {
        const r = await fetch("/api/dashboard/cell?" + q, { cache: "no-store" });
        if (!r.ok) { const b = await r.json().catch(() => ({})); throw new Error(b.error || "HTTP " + r.status); }
        const part = document.createElement("div"); part.className = "cell-detail";
        part.innerHTML = await r.text();   // server-rendered and escaped (ResultsReporting's timeline)
        box.appendChild(part);
        box.scrollIntoView({ block: "nearest" });
      } catch (e) { say("Cell: " + e.message, true); }
    }

    async function compare(a, b) {
      try {
        const doc = await getJSON("/api/dashboard/compare?" + params([["a", a], ["b", b]]));
        $("compare-view").hidden = false;
        $("compare-title").textContent = "Run " + doc.after + " against " + doc.before;
        $("compare-summary").textContent = ["worse", "better", "new", "gone"].map((k) => (doc.counts[k] || 0) + " " + k).join(", ")
          + " (a stall counts as worse when " + doc.thresholds.stallChangeMs + " ms longer)";
        const fw = $("firmware"); fw.textContent = "";
        for (const f of doc.firmware) { const p = document.createElement("p"); p.className = "fw"; p.textContent = receiverLabel(f) + ": firmware changed: " + f.changes.join(", "); fw.appendChild(p); }
        const body = $("changes").tBodies[0]; body.textContent = "";
        for (const e of doc.entries) {
          const row = body.insertRow(); row.className = e.change;
          td(row, e.change); td(row, receiverLabel(e)); td(row, e.deviceClass); td(row, e.caseId); td(row, e.what);
          td(row, e.before ? softwareText(e.before.software) : ""); td(row, e.after ? softwareText(e.after.software) : "");
          td(row, e.firmwareChanged ? "changed" : "", e.firmwareChanged ? "fw" : "");
        }
        $("compare-view").scrollIntoView({ block: "nearest" });
      } catch (e) { say("Compare: " + e.message, true); }
    }

    function follow() {
      const events = new EventSource("/api/dashboard/events");
      events.addEventListener("cell", (e) => {
        const event = JSON.parse(e.data), m = event.cell;
        const shown = view.grid && (!view.run || view.run === m.runId);
        if (!shown || !m.done) return;
        view.fresh.add(key(m.station, m.receiver, m.caseId));   // arrived live: marked, also when the grid is drawn again
        document.body.dataset.lastEvent = String(m.id);
        if (!paintCell(m, null, true)) { loadGrid(); return; }   // a receiver or case the grid lacks: draw it again
        if (view.run === m.runId) renderProgress(event.progress);
      });
      events.onerror = () => say("Live feed interrupted; reconnecting…", true);
      events.onopen = () => say("");
    }

    function route() {
      const m = /^#run=(.+)$/.exec(location.hash);
      view.run = m ? decodeURIComponent(m[1]) : null;
      loadGrid();
    }
    $("filters").onsubmit = (e) => { e.preventDefault(); loadRuns(); loadGrid(); };
    $("show-latest").onclick = () => { location.hash = ""; route(); };
    $("compare").onclick = () => {
      const picked = [...document.querySelectorAll("input.pick:checked")].map((i) => i.value);
      // The older run first: rows list in time order, newest at the top.
      if (picked.length === 2) compare(picked[1], picked[0]);
    };
    window.addEventListener("hashchange", route);
    loadRuns(); route(); follow();
    </script>
    </body>
    </html>
    """#
}
