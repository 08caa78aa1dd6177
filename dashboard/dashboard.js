// pushbridge dashboard: live from /api/events (Server-Sent Events). No library, no URL
// outside this server. Every text from the bridge goes through textContent (topics are
// whatever publishers chose).
"use strict";
(function () {
  const HISTORY_SECONDS = 300;   // rate chart span
  const RATE_WINDOW = 5;         // seconds a topic rate is averaged over
  const MAX_DECISIONS = 200;     // rows kept in the decision list
  const OUTCOMES = ["received", "delivered", "suppressed", "not_displayed", "rejected", "expired", "unrouted",
                    "modified", "timeout", "extension_failed", "loop_dropped"];

  const $ = (id) => document.getElementById(id);
  const topicRows = new Map();   // topic -> {tr, cells}: the topic table's rows, kept between refreshes
  const state = {
    snapshot: null,
    streamOpen: false,
    sortKey: "received",
    sortDir: -1,
    filter: "",
    decisions: [],          // newest first
    history: [],            // [{t, received, delivered, suppressed, rejected}] totals per stats event
    topicHistory: new Map() // topic -> [{t, received}]
  };

  function el(tag, props, children) {
    const e = document.createElement(tag);
    if (props) for (const k in props) {
      if (k === "text") e.textContent = props[k];
      else if (k === "cls") e.className = props[k];
      else if (k.startsWith("data-")) e.setAttribute(k, props[k]);
      else e[k] = props[k];
    }
    if (children) for (const c of children) if (c) e.appendChild(c);
    return e;
  }

  function num(n) { return (n || 0).toLocaleString("en-US"); }
  function rateText(r) {
    if (r === null || r === undefined || !isFinite(r)) return "–";
    return r >= 100 ? Math.round(r).toLocaleString("en-US") : r.toFixed(1);
  }
  function duration(s) {
    s = Math.max(0, Math.floor(s || 0));
    const two = (n) => (n < 10 ? "0" : "") + n;
    if (s < 60) return s + "s";
    if (s < 3600) return Math.floor(s / 60) + "m" + two(s % 60) + "s";
    if (s < 86400) return Math.floor(s / 3600) + "h" + two(Math.floor(s % 3600 / 60)) + "m";
    return Math.floor(s / 86400) + "d" + two(Math.floor(s % 86400 / 3600)) + "h";
  }
  function ago(iso, now) {
    if (!iso) return "–";
    const s = (now - Date.parse(iso)) / 1000;
    if (!(s >= 1)) return "now";
    if (s < 60) return Math.floor(s) + "s ago";
    if (s < 3600) return Math.floor(s / 60) + "m ago";
    if (s < 86400) return Math.floor(s / 3600) + "h ago";
    return Math.floor(s / 86400) + "d ago";
  }
  function clock(iso) {
    const d = new Date(iso);
    if (isNaN(d)) return "";
    const p = (n, w) => String(n).padStart(w || 2, "0");
    return p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds()) + "." + p(d.getMilliseconds(), 3);
  }

  // MQTT-style match when the filter has + or #, else a substring match.
  function topicMatches(topic, filter) {
    if (!filter) return true;
    if (filter.indexOf("+") < 0 && filter.indexOf("#") < 0) return topic.indexOf(filter) >= 0;
    const f = filter.split("/"), t = topic.split("/");
    for (let i = 0; i < f.length; i++) {
      if (f[i] === "#") return true;
      if (i >= t.length) return false;
      if (f[i] !== "+" && f[i] !== t[i]) return false;
    }
    return f.length === t.length;
  }

  // ---- connection state ----
  function showConnection() {
    const pill = $("conn"), text = $("conn-text");
    let s, label;
    if (!state.streamOpen) { s = "unreachable"; label = state.snapshot ? "bridge unreachable" : "connecting…"; }
    else if (state.snapshot && state.snapshot.connected) { s = "connected"; label = "broker connected"; }
    else { s = "disconnected"; label = "broker disconnected"; }
    pill.dataset.state = s;
    text.textContent = label;
  }

  // ---- stats ----
  function onStats(snap) {
    const now = Date.now();
    state.snapshot = snap;
    const t = snap.totals || {};
    state.history.push({ t: now, received: t.received || 0, delivered: t.delivered || 0,
                         suppressed: t.suppressed || 0, rejected: t.rejected || 0 });
    while (state.history.length && state.history[0].t < now - (HISTORY_SECONDS + 5) * 1000) state.history.shift();
    const topics = snap.topics || {};
    for (const name in topics) {
      let h = state.topicHistory.get(name);
      if (!h) { h = []; state.topicHistory.set(name, h); }
      h.push({ t: now, received: topics[name].received || 0 });
      while (h.length > 2 && h[0].t < now - (RATE_WINDOW + 1) * 1000) h.shift();
    }
    render();
    loadAlerts();
  }

  function rateOf(h) {
    if (!h || h.length < 2) return null;
    const a = h[0], b = h[h.length - 1];
    const dt = (b.t - a.t) / 1000;
    return dt > 0 && b.received >= a.received ? (b.received - a.received) / dt : null;
  }

  function render() {
    const snap = state.snapshot;
    if (!snap) return;
    $("version").textContent = snap.version ? "v" + snap.version : "";
    $("uptime").textContent = duration(snap.uptime_s);
    $("inflight").textContent = num(snap.in_flight);
    $("total-rate").textContent = rateText(rateOf(state.history.slice(-RATE_WINDOW - 1)));
    const t = snap.totals || {};
    for (const o of OUTCOMES) { const e = $("t-" + o); if (e) e.textContent = num(t[o]); }
    const lat = snap.latency_ms || {};
    $("lat-p50").textContent = (lat.p50 || 0).toFixed(1);
    $("lat-p99").textContent = (lat.p99 || 0).toFixed(1);
    showConnection();
    renderTopics(snap);
    renderRoutes(snap);
    renderFilters(snap);
    renderOutputs(snap);
    renderPeople(snap);
    renderState(snap);
    drawChart();
  }

  function numCell(v) { return el("td", { cls: "num" + (v ? "" : " zero"), text: num(v) }); }

  function renderTopics(snap) {
    const now = Date.now();
    const rows = [];
    const topics = snap.topics || {};
    for (const name in topics) {
      const c = topics[name];
      rows.push({ topic: name, received: c.received || 0, delivered: c.delivered || 0, suppressed: c.suppressed || 0,
                  rejected: c.rejected || 0, rate: rateOf(state.topicHistory.get(name)), last_seen: c.last_seen || "" });
    }
    const k = state.sortKey, dir = state.sortDir;
    rows.sort((a, b) => {
      let x = a[k], y = b[k];
      if (x === null) x = -1; if (y === null) y = -1;
      if (x < y) return -dir; if (x > y) return dir;
      return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0;
    });
    // Rows are kept and updated in place (a click or the keyboard focus on a topic survives
    // the once-a-second refresh); they are moved only when the order changes.
    const body = document.querySelector("#topics tbody");
    const focused = document.activeElement && document.activeElement.classList.contains("topic-link")
      ? document.activeElement.dataset.topic : null;
    const seen = new Set();
    rows.forEach((r) => {
      seen.add(r.topic);
      let entry = topicRows.get(r.topic);
      if (!entry) {
        const link = el("button", { type: "button", cls: "topic-link", text: r.topic, title: "Show decisions for " + r.topic, "data-topic": r.topic });
        const cells = {};
        const tds = [el("td", { cls: "topic" }, [link])];
        for (const k of ["received", "delivered", "suppressed", "rejected"]) { cells[k] = el("td", { cls: "num " + k }); tds.push(cells[k]); }
        cells.rate = el("td", { cls: "num rate" }); tds.push(cells.rate);
        cells.seen = el("td", { cls: "seen" }); tds.push(cells.seen);
        entry = { tr: el("tr", { "data-topic": r.topic }, tds), cells: cells };
        topicRows.set(r.topic, entry);
      }
      for (const k of ["received", "delivered", "suppressed", "rejected"]) {
        entry.cells[k].textContent = num(r[k]);
        entry.cells[k].classList.toggle("zero", !r[k]);
      }
      entry.cells.rate.textContent = rateText(r.rate);
      entry.cells.seen.textContent = ago(r.last_seen, now);
      entry.tr.classList.toggle("selected", !!state.filter && state.filter === r.topic);
    });
    for (const [topic, entry] of topicRows) if (!seen.has(topic)) { entry.tr.remove(); topicRows.delete(topic); }
    const order = rows.map((r) => topicRows.get(r.topic).tr);
    const current = Array.from(body.children);
    if (order.length !== current.length || order.some((tr, i) => tr !== current[i])) {
      for (const tr of order) body.appendChild(tr);
      if (focused) { const again = topicRows.get(focused); if (again) again.tr.querySelector("button").focus(); }
    }
    $("topic-count").textContent = rows.length ? "(" + rows.length + ")" : "";
    for (const th of document.querySelectorAll("#topics th")) {
      const key = th.querySelector("button").dataset.key;
      th.setAttribute("aria-sort", key === k ? (dir > 0 ? "ascending" : "descending") : "none");
    }
  }

  function renderRoutes(snap) {
    const body = document.querySelector("#routes tbody");
    const frag = document.createDocumentFragment();
    const routes = snap.routes || {};
    for (const name of Object.keys(routes).sort()) {
      const c = routes[name];
      frag.appendChild(el("tr", { "data-route": name }, [el("td", { text: name }), numCell(c.received), numCell(c.delivered),
        numCell(c.suppressed), numCell(c.not_displayed), numCell(c.rejected)]));
    }
    body.replaceChildren(frag);
  }

  // Under monitoring.http_auth a session ends after 12 hours (or when the token changes): the
  // API then answers 401, and reloading shows the sign-in form in place of a page that stalls.
  function signedOut(r) { if (r.status === 401) location.reload(); return r; }

  // The active conditions (GET api/alerts), fetched with each stats snapshot (once a second).
  let alertsInFlight = false;
  function loadAlerts() {
    if (alertsInFlight) return;
    alertsInFlight = true;
    fetch("api/alerts", { cache: "no-store" }).then(signedOut).then((r) => (r.ok ? r.json() : [])).then(renderAlerts)
      .catch(() => {}).finally(() => { alertsInFlight = false; });
  }

  function renderAlerts(alerts) {
    if (!Array.isArray(alerts)) return;
    const body = document.querySelector("#alerts tbody");
    const frag = document.createDocumentFragment();
    const now = Date.now();
    for (const a of alerts) {
      let answered = "–";
      if (a.acknowledged_by !== null && a.acknowledged_by !== undefined) answered = "acknowledged" + (a.acknowledged_by ? " by " + a.acknowledged_by : "");
      if (a.snoozed_until) answered = "snoozed until " + clock(a.snoozed_until);
      // Superseded: raised silently while the condition it depends on is raised (muted, and
      // naming that route when the API gives it).
      const state = a.state === "superseded" && a.superseded_by ? "superseded by " + a.superseded_by : a.state;
      frag.appendChild(el("tr", { "data-alert": a.alert_id, "data-state": a.state }, [
        el("td", { text: a.key }), el("td", { text: a.route }), el("td", { cls: "state", text: state }),
        el("td", { text: clock(a.raised_at) + " (" + ago(a.raised_at, now) + ")" }),
        numCell(a.repeat), numCell(a.step), el("td", { cls: "answered", text: answered })]));
    }
    body.replaceChildren(frag);
    document.getElementById("alert-count").textContent = alerts.length ? "(" + alerts.length + ")" : "";
    document.getElementById("alerts-empty").hidden = alerts.length > 0;
  }

  function renderFilters(snap) {
    const body = document.querySelector("#filters tbody");
    const frag = document.createDocumentFragment();
    const filters = snap.filters || {};
    const names = Object.keys(filters).sort();
    for (const name of names) {
      frag.appendChild(el("tr", { "data-filter": name }, [el("td", { text: name }), numCell(filters[name].suppressed)]));
    }
    if (!names.length) frag.appendChild(el("tr", null, [el("td", { cls: "muted", text: "no suppression yet", colSpan: 2 })]));
    body.replaceChildren(frag);
  }

  // The outputs (ntfy, webhook…): shown only when the bridge has some.
  function renderOutputs(snap) {
    const outputs = snap.outputs || {};
    const names = Object.keys(outputs).sort();
    $("outputs-panel").hidden = !names.length;
    const frag = document.createDocumentFragment();
    for (const name of names) {
      const o = outputs[name], lat = o.latency_ms || {};
      const row = el("tr", { "data-output": name }, [el("td", { text: name }), el("td", { text: o.kind || "" }), numCell(o.delivered),
        numCell(o.failed), numCell(o.retried), numCell(o.pending), el("td", { cls: "num", text: fmtMs(lat.p50) }), el("td", { cls: "num", text: fmtMs(lat.p99) })]);
      if (o.pending > 0 && o.retried > 0) row.classList.add("warn");
      frag.appendChild(row);
    }
    $("outputs").querySelector("tbody").replaceChildren(frag);
  }

  // The people (people:): each one's presence and since when; shown only when the bridge has some.
  function renderPeople(snap) {
    const people = snap.people || {};
    const names = Object.keys(people);
    $("people-panel").hidden = !names.length;
    const frag = document.createDocumentFragment();
    for (const name of names) {
      const p = people[name] || {};
      const since = p.since ? new Date(p.since) : null;
      const row = el("tr", { "data-person": name }, [el("td", { text: name }), el("td", { text: p.presence || "unknown" }),
        el("td", { text: since ? since.toLocaleString() + " (" + duration((Date.now() - since.getTime()) / 1000) + " ago)" : "–" })]);
      if (p.presence === "unknown") row.classList.add("warn");
      frag.appendChild(row);
    }
    $("people").querySelector("tbody").replaceChildren(frag);
  }

  // The shared state (state.redis): the backend, whether it answers (and why not), its round
  // trip and each operation's results; shown only when the bridge keeps its state there.
  function renderState(snap) {
    const st = snap.state;
    $("state-panel").hidden = !st;
    if (!st) return;
    const summary = $("state-summary");
    summary.textContent = st.backend + " at " + st.url + ": " + (st.connected
      ? "connected, round trip " + fmtMs(st.round_trip_ms) + " ms"
      : "NOT CONNECTED" + (st.error ? " (" + st.error + ")" : ""));
    summary.classList.toggle("warn", !st.connected);
    const ops = st.operations || {};
    const frag = document.createDocumentFragment();
    for (const op of Object.keys(ops).sort()) {
      const o = ops[op] || {};
      const row = el("tr", { "data-op": op }, [el("td", { text: op }), el("td", { cls: "num", text: String(o.ok || 0) }),
        el("td", { cls: "num", text: String(o.error || 0) })]);
      if (o.error > 0) row.classList.add("warn");
      frag.appendChild(row);
    }
    $("state-ops").querySelector("tbody").replaceChildren(frag);
  }

  function fmtMs(v) { return typeof v === "number" ? v.toFixed(1) : "–"; }

  // ---- chart ----
  function cssVar(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim(); }

  function drawChart() {
    const canvas = $("chart");
    const ratio = window.devicePixelRatio || 1;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (!w || !h) return;
    if (canvas.width !== Math.round(w * ratio) || canvas.height !== Math.round(h * ratio)) {
      canvas.width = Math.round(w * ratio); canvas.height = Math.round(h * ratio);
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, w, h);
    // The span grows with the history: a minute at first, at most HISTORY_SECONDS.
    const now = Date.now();
    const oldest = state.history.length ? state.history[0].t : now;
    const span = Math.min(HISTORY_SECONDS, Math.max(60, Math.ceil((now - oldest) / 60000) * 60)) * 1000;
    const series = { received: [], delivered: [], suppressed: [], rejected: [] };
    const hist = state.history;
    for (let i = 1; i < hist.length; i++) {
      const a = hist[i - 1], b = hist[i], dt = (b.t - a.t) / 1000;
      if (dt <= 0) continue;
      for (const k in series) series[k].push({ t: b.t, v: Math.max(0, (b[k] - a[k]) / dt) });
    }
    let max = 1;
    for (const k in series) for (const p of series[k]) if (p.t >= now - span && p.v > max) max = p.v;
    const step = niceStep(max / 4);
    max = Math.ceil(max / step) * step;
    const left = 48, right = 8, top = 8, bottom = 22;
    const pw = w - left - right, ph = h - top - bottom;
    const x = (t) => left + pw * (1 - (now - t) / span);
    const y = (v) => top + ph * (1 - v / max);
    ctx.font = "11px system-ui, sans-serif";
    ctx.fillStyle = cssVar("--muted");
    ctx.strokeStyle = cssVar("--line");
    ctx.lineWidth = 1;
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    for (let v = 0; v <= max + 1e-9; v += step) {
      const yy = Math.round(y(v)) + 0.5;
      ctx.beginPath(); ctx.moveTo(left, yy); ctx.lineTo(w - right, yy); ctx.stroke();
      ctx.fillText(v >= 1000 ? (v / 1000).toFixed(v % 1000 ? 1 : 0) + "k" : String(Math.round(v * 10) / 10), left - 6, yy);
    }
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    const tickSeconds = span <= 60000 ? 15 : 60;
    for (let s = 0; s * 1000 <= span; s += tickSeconds) {
      const xx = x(now - s * 1000);
      const label = s === 0 ? "now" : s < 60 ? "-" + s + "s" : "-" + s / 60 + "m";
      ctx.fillText(label, Math.min(Math.max(xx, left + 10), w - right - 12), h - bottom + 6);
    }
    const colors = { received: cssVar("--accent"), delivered: cssVar("--ok"), suppressed: cssVar("--quiet"), rejected: cssVar("--bad") };
    for (const k of ["suppressed", "rejected", "delivered", "received"]) {
      const pts = series[k].filter((p) => p.t >= now - span);
      if (pts.length < 2) continue;
      ctx.strokeStyle = colors[k]; ctx.lineWidth = k === "received" ? 2.2 : 1.6;
      ctx.beginPath();
      pts.forEach((p, i) => (i ? ctx.lineTo(x(p.t), y(p.v)) : ctx.moveTo(x(p.t), y(p.v))));
      ctx.stroke();
      if (k === "received") {
        ctx.lineTo(x(pts[pts.length - 1].t), y(0)); ctx.lineTo(x(pts[0].t), y(0)); ctx.closePath();
        ctx.globalAlpha = 0.12; ctx.fillStyle = colors[k]; ctx.fill(); ctx.globalAlpha = 1;
      }
    }
  }

  function niceStep(raw) {
    if (!(raw > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
  }

  // ---- decisions ----
  // Decisions arrive in bursts (thousands a second under a flood): they are queued and
  // merged once per animation frame, newest first, keeping the last MAX_DECISIONS * 5.
  let incoming = [], pending = false, freshCount = 0;
  function onDecision(d) {
    incoming.push(d);
    if (incoming.length > MAX_DECISIONS * 5) incoming = incoming.slice(-MAX_DECISIONS * 5);
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      freshCount += incoming.length;
      state.decisions = incoming.reverse().concat(state.decisions).slice(0, MAX_DECISIONS * 5);
      incoming = [];
      if (!$("pause").checked) renderDecisions();
    });
  }

  // An attachment's capability URL, as a path on this server (relative, as the page's other
  // requests): the picture loads from where the page came from, whatever host the URL names.
  const ATTACHMENT_PATH = /\/(attachments\/[0-9a-f]{32}\/[A-Za-z0-9_-]+\.[a-z0-9]+)$/;
  function attachmentPath(url) {
    try { const m = ATTACHMENT_PATH.exec(new URL(url).pathname); return m ? m[1] : null; } catch (_) { return null; }
  }

  // A decision's attachments: a small picture for an attached image, the type for other
  // media, and why for one that was not attached.
  function attachmentList(list) {
    const box = el("div", { cls: "attachments" });
    for (const a of list) {
      const name = String(a.identifier || "");
      if (!a.attached) {
        box.appendChild(el("span", { cls: "not-attached", text: name + ": not attached (" + (a.reason || "?") + ")", title: a.detail || "" }));
        continue;
      }
      const path = a.url ? attachmentPath(a.url) : null;
      const label = name + " · " + (a.type || "") + " · " + num(a.size) + " bytes";
      if (path && String(a.type).startsWith("image/")) {
        // Once the bridge no longer keeps the file (attachments.keep) it answers 404: the
        // browser shows the alt text, the attachment's name.
        box.appendChild(el("img", { src: path, alt: name, title: label, loading: "lazy", decoding: "async" }));
      } else {
        box.appendChild(el("span", { text: name + ": " + (a.type || "attached"), title: label }));
      }
    }
    return box;
  }

  function decisionRow(d, fresh) {
    const rule = el("td", { cls: "rule" });
    if (d.decided_by) rule.appendChild(el("span", { cls: "by", text: d.decided_by }));
    rule.appendChild(el("span", { cls: "why", text: d.rule || "" }));
    if (Array.isArray(d.attachments) && d.attachments.length) rule.appendChild(attachmentList(d.attachments));
    const topic = el("button", { type: "button", cls: "topic-link", text: d.topic, title: "Show only " + d.topic, "data-topic": d.topic });
    const tr = el("tr", { "data-topic": d.topic, "data-outcome": d.outcome, "data-id": d.id || "" }, [
      el("td", { cls: "time", text: clock(d.at), title: d.at }),
      el("td", { cls: "topic" }, [topic]),
      el("td", { cls: "route", text: d.route || "–" }),
      el("td", { cls: "outcome-cell" }, [el("span", { cls: "outcome " + d.outcome, text: d.outcome.replace("_", " ") })]),
      rule,
      el("td", { cls: "reason", text: d.reason || "" })
    ]);
    if (d.decided_by) tr.setAttribute("data-decided-by", d.decided_by);
    if (fresh) tr.classList.add("fresh");
    return tr;
  }

  function renderDecisions() {
    const shown = [];
    for (const d of state.decisions) {
      // A topic (or MQTT filter), or a message id pasted from a display message.
      if (topicMatches(d.topic, state.filter) || (state.filter && d.id === state.filter)) {
        shown.push(d);
        if (shown.length >= MAX_DECISIONS) break;
      }
    }
    const frag = document.createDocumentFragment();
    shown.forEach((d, i) => frag.appendChild(decisionRow(d, i < Math.min(freshCount, 20))));
    freshCount = 0;
    document.querySelector("#decisions tbody").replaceChildren(frag);
    $("decision-count").textContent = state.filter ? "(" + shown.length + " for “" + state.filter + "”)" : "(" + shown.length + ")";
    $("decisions-empty").hidden = shown.length > 0;
  }

  function setFilter(topic) {
    state.filter = topic;
    $("topic-filter").value = topic;
    renderDecisions();
    if (state.snapshot) renderTopics(state.snapshot);
  }

  // ---- wiring ----
  document.querySelector("#topics thead").addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    const key = b.dataset.key;
    if (state.sortKey === key) state.sortDir = -state.sortDir;
    else { state.sortKey = key; state.sortDir = key === "topic" ? 1 : -1; }
    if (state.snapshot) renderTopics(state.snapshot);
  });
  document.addEventListener("click", (e) => {
    const b = e.target.closest("button.topic-link");
    if (!b) return;
    setFilter(state.filter === b.dataset.topic ? "" : b.dataset.topic);
    if (state.filter) $("decisions-title").scrollIntoView({ behavior: "smooth", block: "start" });
  });
  $("topic-filter").addEventListener("input", (e) => {
    state.filter = e.target.value.trim();
    renderDecisions();
    if (state.snapshot) renderTopics(state.snapshot);
  });
  $("clear-filter").addEventListener("click", () => setFilter(""));
  $("pause").addEventListener("change", () => renderDecisions());
  window.addEventListener("resize", () => drawChart());
  // "last seen" and the chart move with time even when no event arrives.
  setInterval(() => { if (state.snapshot && !state.streamOpen) { showConnection(); drawChart(); } }, 1000);

  function parse(text) { try { return JSON.parse(text); } catch (_) { return null; } }

  function connect() {
    const source = new EventSource("api/events");
    source.addEventListener("open", () => { state.streamOpen = true; showConnection(); });
    source.addEventListener("error", () => {
      state.streamOpen = false;
      showConnection();
      // A refused stream is not retried by the browser: find out whether the session ended.
      if (source.readyState === EventSource.CLOSED) fetch("api/stats", { cache: "no-store" }).then(signedOut).catch(() => {});
    });
    source.addEventListener("stats", (e) => { const s = parse(e.data); if (s) { state.streamOpen = true; onStats(s); } });
    source.addEventListener("decision", (e) => { const d = parse(e.data); if (d && d.topic !== undefined) onDecision(d); });
  }

  // The server's last minutes of totals: the chart starts full, not empty.
  function loadHistory() {
    fetch("api/history", { cache: "no-store" }).then(signedOut).then((r) => (r.ok ? r.json() : [])).then((h) => {
      if (!Array.isArray(h) || !h.length) return;
      const first = state.history.length ? state.history[0].t : Infinity;
      const before = h.filter((p) => p[0] < first - 500)
        .map((p) => ({ t: p[0], received: p[1], delivered: p[2], suppressed: p[3], rejected: p[4] }));
      state.history = before.concat(state.history);
      drawChart();
    }).catch(() => {});
  }

  renderDecisions();
  showConnection();
  loadHistory();
  connect();
})();
