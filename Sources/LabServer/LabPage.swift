/// The lab page, served at `/`: plain HTML, CSS and JavaScript with no build step, made to be
/// opened on an iPhone or a Mac in Safari. The video element carries the AirPlay button, so a case
/// plays on a receiver in two taps; sessions refresh live; verdicts go to `POST /api/verdicts` with
/// the server's write token, which the page carries in a meta element (LabAccess).
enum LabPage {
    /// The page carrying `token` (hex, or empty when the page is not served to the lab's own origin).
    static func html(token: String) -> String {
        template.replacingOccurrences(of: "{LAB_TOKEN}", with: token.allSatisfy(\.isHexDigit) ? token : "")
    }

    static let template = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="seamcheck-lab-token" content="{LAB_TOKEN}">
    <title>Seamcheck lab</title>
    <style>
    :root { color-scheme: light dark; --accent: #0a6cff; --bad: #c62828; --ok: #2e7d32; --muted: #777; }
    body { font: 15px/1.4 -apple-system, system-ui, sans-serif; margin: 0 auto; max-width: 980px; padding: 12px; }
    h1 { font-size: 1.3em; margin: 0 0 8px; } h2 { font-size: 1.1em; margin: 18px 0 6px; }
    #player { position: sticky; top: 0; background: Canvas; padding: 6px 0; z-index: 2; border-bottom: 1px solid #8884; }
    video { width: 100%; max-height: 40vh; background: #000; border-radius: 6px; }
    .row { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
    select, input, button { font: inherit; padding: 6px 8px; border-radius: 6px; border: 1px solid #8886; }
    button { background: Canvas; cursor: pointer; } button:active { transform: scale(.97); }
    button.play { background: var(--accent); color: #fff; border-color: var(--accent); }
    .case { border: 1px solid #8884; border-radius: 8px; padding: 8px 10px; margin: 8px 0; }
    .case h3 { margin: 0; font-size: 1em; } .case .meta { color: var(--muted); font-size: .85em; word-break: break-all; }
    .verdicts button[data-verdict=seamless] { border-color: var(--ok); }
    .verdicts button[data-verdict=stall], .verdicts button[data-verdict=black], .verdicts button[data-verdict=failed] { border-color: var(--bad); }
    .recorded { font-size: .85em; color: var(--muted); }
    table { border-collapse: collapse; width: 100%; font-size: .85em; } td, th { text-align: left; padding: 3px 5px; border-bottom: 1px solid #8883; }
    #status { min-height: 1.4em; font-size: .9em; } #status.error { color: var(--bad); } #status.ok { color: var(--ok); }
    .yes { color: var(--ok); } .no { color: var(--muted); }
    </style>
    </head>
    <body>
    <h1>Seamcheck lab</h1>
    <div id="player">
      <video id="video" controls playsinline x-webkit-airplay="allow"></video>
      <div class="row">
        <span id="now">Pick a case, press Play, then AirPlay it to a receiver.</span>
        <button id="airplay" hidden>AirPlay…</button>
      </div>
      <div class="row">
        <label>Receiver <select id="receiver"><option value="">(choose the receiver you are testing)</option></select></label>
        <label>Seconds <input id="seconds" type="number" min="0" step="0.1" inputmode="decimal" style="width:6em"></label>
        <input id="note" placeholder="note (optional)" style="flex:1;min-width:10em">
      </div>
      <div id="status" role="status"></div>
    </div>
    <h2>Cases</h2>
    <div id="cases">Loading…</div>
    <h2>Sessions (live)</h2>
    <table><thead><tr><th>receiver</th><th>class</th><th>case</th><th>variant</th><th>ad</th><th>resumed at</th><th>requests</th></tr></thead>
    <tbody id="sessions"></tbody></table>
    <h2>Verdicts</h2>
    <table><thead><tr><th>time</th><th>receiver</th><th>case</th><th>verdict</th><th>s</th><th>note</th></tr></thead>
    <tbody id="verdicts"></tbody></table>
    <script>
    const VERDICTS = ["seamless", "glitch", "stall", "black", "skipped", "failed"];
    const $ = (id) => document.getElementById(id);
    const TOKEN = document.querySelector('meta[name="seamcheck-lab-token"]').content;
    const video = $("video");
    function text(value) { return value === null || value === undefined ? "" : String(value); }
    function cell(row, value, cls) { const td = row.insertCell(); td.textContent = text(value); if (cls) td.className = cls; return td; }
    function say(message, kind) { const s = $("status"); s.textContent = message; s.className = kind || ""; }
    async function getJSON(path) { const r = await fetch(path, { cache: "no-store" }); if (!r.ok) throw new Error(path + ": HTTP " + r.status); return r.json(); }

    if (window.WebKitPlaybackTargetAvailabilityEvent) {
      video.addEventListener("webkitplaybacktargetavailabilitychanged", (e) => { $("airplay").hidden = e.availability !== "available"; });
      $("airplay").addEventListener("click", () => video.webkitShowPlaybackTargetPicker());
    }

    function play(c) {
      video.src = new URL(c.playlist, location.origin + "/").href;
      $("now").textContent = "Playing " + c.id + " — " + c.title;
      video.play().catch(() => {});
    }

    async function record(caseId, verdict, button) {
      const receiver = $("receiver").value;
      if (!receiver) { say("Choose the receiver first.", "error"); $("receiver").focus(); return; }
      const seconds = $("seconds").value === "" ? null : Number($("seconds").value);
      const body = { receiver, case: caseId, verdict, seconds, note: $("note").value || null };
      button.disabled = true;
      try {
        const r = await fetch("/api/verdicts", { method: "POST", headers: { "Content-Type": "application/json", "X-Seamcheck-Lab-Token": TOKEN }, body: JSON.stringify(body) });
        const answer = await r.json();
        if (!r.ok) { say(answer.error || ("HTTP " + r.status), "error"); return; }
        say("Recorded " + verdict + " for " + caseId + " on " + answer.receiver + ".", "ok");
        $("note").value = ""; $("seconds").value = "";
        refresh();
      } catch (e) { say("Not recorded: " + e.message, "error"); }
      finally { button.disabled = false; }
    }

    function renderCases(manifest) {
      const box = $("cases"); box.textContent = "";
      let group = null;
      for (const c of manifest.cases) {
        // Behaviour cases (one interstitial feature each) come last, under a heading of their own.
        if (c.kind === "behaviour" && group !== "behaviour") {
          group = "behaviour";
          const g = document.createElement("h3"); g.className = "group"; g.id = "group-behaviour";
          g.textContent = "Behaviour: what the receiver does with each interstitial feature (judged from its requests)";
          box.appendChild(g);
        }
        const div = document.createElement("div"); div.className = "case"; div.id = "case-" + c.id;
        const h = document.createElement("h3"); h.textContent = c.id + " — " + c.title; div.appendChild(h);
        const meta = document.createElement("div"); meta.className = "meta";
        const b = c.behaviour;
        const what = b ? "behaviour; feature: " + b.feature + (b.live ? "; live" : "") + "; expects: "
            + b.expectations.map(e => e.kind + (e.seconds === undefined || e.seconds === null ? "" : " " + e.seconds + " s")).join(", ")
            + (b.commands.length ? "; sender: " + b.commands.map(m => m.kind + " " + m.value + " after " + m.after + " s").join(", ") : "")
          : c.kind + "; varies: " + c.varies + (c.rules.length ? "; rules: " + c.rules.join(", ") : "");
        meta.textContent = what + " — " + new URL(c.playlist, location.origin + "/").href;
        div.appendChild(meta);
        const row = document.createElement("div"); row.className = "row verdicts";
        const p = document.createElement("button"); p.className = "play"; p.textContent = "Play"; p.onclick = () => play(c); row.appendChild(p);
        // A behaviour case is judged from the receiver's requests: there is no verdict to give.
        for (const v of (c.behaviour ? [] : VERDICTS)) {
          const b = document.createElement("button"); b.textContent = v; b.dataset.verdict = v; b.dataset.case = c.id;
          b.onclick = () => record(c.id, v, b); row.appendChild(b);
        }
        if (c.behaviour) {
          const n = document.createElement("span"); n.className = "meta"; row.appendChild(n);
          n.textContent = "judged from the receiver's requests (seamcheck lab report --behaviour)";
        }
        div.appendChild(row);
        const rec = document.createElement("div"); rec.className = "recorded"; rec.id = "recorded-" + c.id; div.appendChild(rec);
        box.appendChild(div);
      }
    }

    function renderReceivers(receivers, sessions) {
      const select = $("receiver"), chosen = select.value, names = new Map();
      for (const r of receivers) names.set(r.name, r.name + " (" + (r.deviceClass || "unclassified") + (r.goneAt ? ", gone" : "") + ")");
      for (const s of sessions) if (!s.receiver && !names.has(s.client)) names.set(s.client, s.client + " (unmapped client)");
      const keep = select.options[0]; select.textContent = ""; select.appendChild(keep);
      for (const [value, label] of names) { const o = new Option(label, value); select.appendChild(o); }
      select.value = names.has(chosen) ? chosen : "";
    }

    function renderSessions(sessions) {
      const body = $("sessions"); body.textContent = "";
      for (const s of sessions.slice().reverse().slice(0, 50)) {
        const row = body.insertRow();
        cell(row, s.receiver || s.client); cell(row, s.deviceClass || "—"); cell(row, s.case); cell(row, s.variant);
        cell(row, s.interstitialRequested ? "fetched" : "not fetched", s.interstitialRequested ? "yes" : "no");
        cell(row, s.resumedAt === null || s.resumedAt === undefined ? "" : s.resumedAt.toFixed(3) + " s"); cell(row, s.requests);
      }
    }

    function renderVerdicts(verdicts) {
      const body = $("verdicts"); body.textContent = "";
      document.querySelectorAll(".recorded").forEach((e) => (e.textContent = ""));
      for (const v of verdicts.slice().reverse()) {
        const row = body.insertRow();
        cell(row, new Date(v.recordedAt).toLocaleTimeString()); cell(row, v.receiver); cell(row, v.caseId); cell(row, v.verdict);
        cell(row, v.seconds); cell(row, v.note);
        const rec = document.getElementById("recorded-" + v.caseId);
        if (rec) rec.textContent += (rec.textContent ? "; " : "Recorded: ") + v.receiver + " " + v.verdict;
      }
    }

    async function refresh() {
      try {
        const [receivers, sessions, verdicts] = await Promise.all([getJSON("/api/receivers"), getJSON("/api/sessions"), getJSON("/api/verdicts")]);
        renderReceivers(receivers.receivers, sessions.sessions); renderSessions(sessions.sessions); renderVerdicts(verdicts.verdicts);
      } catch (e) { say("Cannot reach the lab server: " + e.message, "error"); }
    }

    getJSON("/api/cases").then((m) => { renderCases(m); refresh(); setInterval(refresh, 3000); })
      .catch((e) => { $("cases").textContent = "Cannot load the cases: " + e.message; });
    </script>
    </body>
    </html>
    """
}
