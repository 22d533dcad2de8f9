// ksleuth report: timeline layout (offsets or time), zoom and pan, lane
// collapse, table sorting, and a self-check the browser test reads.
"use strict";
(function () {
  var errors = [];
  window.addEventListener("error", function (e) { errors.push(String(e.message || e)); });
  var origError = console.error;
  console.error = function () {
    errors.push(Array.prototype.join.call(arguments, " "));
    return origError.apply(console, arguments);
  };

  // Geometry: the same constants as render.go.
  var SVGW = 1200, PX = 150, PW = 1030, AX = 26, RH = 20, RHC = 9, PAD = 8;
  var NS = "http://www.w3.org/2000/svg";
  var mode = "offset";
  var panels = Array.prototype.slice.call(document.querySelectorAll(".panel"));

  function num(s) { return s === undefined || s === "" ? null : Number(s); }

  panels.forEach(function (p) {
    var st = {
      o: [num(p.dataset.o0), num(p.dataset.o1)],
      t: p.dataset.t0 ? [num(p.dataset.t0), num(p.dataset.t1)] : null,
      collapsed: p.dataset.collapsed === "1"
    };
    st.ov = st.o.slice();
    st.tv = st.t ? st.t.slice() : null;
    p._st = st;
    p._svg = p.querySelector("svg.timeline");
    p._lanes = Array.prototype.slice.call(p._svg.querySelectorAll("g.lane, g.lane-anon"));
    p._links = Array.prototype.slice.call(p._svg.querySelectorAll("path.link"));
    p._labels = Array.prototype.slice.call(p._svg.querySelectorAll("text.lbl"));
    p.querySelectorAll(".zoom button").forEach(function (b) {
      b.addEventListener("click", function () { act(p, b.dataset.act, b); });
    });
    bindPan(p);
  });

  function view(p) { return mode === "time" && p._st.t ? p._st.tv : p._st.ov; }
  function full(p) { return mode === "time" && p._st.t ? p._st.t : p._st.o; }

  function act(p, what, btn) {
    var v = view(p), f = full(p), c = (v[0] + v[1]) / 2, w = v[1] - v[0];
    if (what === "in") { zoomTo(p, c, w / 2); }
    else if (what === "out") { zoomTo(p, c, w * 2); }
    else if (what === "reset") { v[0] = f[0]; v[1] = f[1]; layout(p); }
    else if (what === "expand") {
      p._st.collapsed = !p._st.collapsed;
      btn.textContent = p._st.collapsed ? "expand " + p._lanes.filter(isSession).length + " lanes" : "collapse lanes";
      layout(p);
    }
  }
  function isSession(g) { return g.classList.contains("lane"); }

  function zoomTo(p, center, width) {
    var v = view(p), f = full(p);
    var minW = mode === "time" ? 1 : 1;
    width = Math.max(minW, Math.min(width, f[1] - f[0]));
    var a = center - width / 2;
    a = Math.max(f[0], Math.min(a, f[1] - width));
    v[0] = a; v[1] = a + width;
    layout(p);
  }

  function bindPan(p) {
    var svg = p._svg, start = null;
    function toUnits(ev) { var r = svg.getBoundingClientRect(); return (ev.clientX - r.left) * SVGW / r.width; }
    svg.addEventListener("pointerdown", function (ev) {
      start = { x: toUnits(ev), v: view(p).slice() };
      svg.classList.add("drag");
      if (svg.setPointerCapture) { svg.setPointerCapture(ev.pointerId); }
    });
    svg.addEventListener("pointermove", function (ev) {
      if (!start) { return; }
      var v = view(p), f = full(p), w = start.v[1] - start.v[0];
      var d = (toUnits(ev) - start.x) / PW * w;
      var a = Math.max(f[0], Math.min(start.v[0] - d, f[1] - w));
      v[0] = a; v[1] = a + w;
      layout(p);
    });
    function end() { start = null; svg.classList.remove("drag"); }
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    svg.addEventListener("wheel", function (ev) {
      if (!ev.ctrlKey && !ev.altKey && !ev.metaKey) { return; }
      ev.preventDefault();
      var v = view(p), x = toUnits(ev);
      var at = v[0] + (x - PX) / PW * (v[1] - v[0]);
      var k = ev.deltaY > 0 ? 1.25 : 0.8, w = (v[1] - v[0]) * k;
      zoomTo(p, at + (v[0] + (v[1] - v[0]) / 2 - at) * k, w);
    }, { passive: false });
    svg.addEventListener("dblclick", function (ev) {
      var v = view(p), x = toUnits(ev);
      zoomTo(p, v[0] + (x - PX) / PW * (v[1] - v[0]), (v[1] - v[0]) / 2);
    });
  }

  function layout(p) {
    var st = p._st, time = mode === "time" && st.t, v = view(p);
    var d0 = v[0], d1 = v[1] > v[0] ? v[1] : v[0] + 1;
    function X(val) { return PX + (val - d0) / (d1 - d0) * PW; }
    var rh = st.collapsed ? RHC : RH, rows = 0;
    p._lanes.forEach(function (g) {
      var r = Number(st.collapsed ? g.dataset.row : g.dataset.idx);
      var top = AX + r * rh;
      g._mid = top + rh / 2;
      rows = Math.max(rows, r + 1);
      g.querySelectorAll("rect[data-o0]").forEach(function (el) {
        var a = num(time ? el.dataset.t0 : el.dataset.o0), b = num(time ? el.dataset.t1 : el.dataset.o1);
        if (a === null || b === null) { el.setAttribute("display", "none"); return; }
        el.removeAttribute("display");
        var x0 = X(a), x1 = X(b);
        if (el.dataset.mark) {
          el.setAttribute("x", (x0 - 1).toFixed(1)); el.setAttribute("width", "3");
          el.setAttribute("y", (top + 1).toFixed(1)); el.setAttribute("height", (rh - 2).toFixed(1));
          return;
        }
        var pad = st.collapsed ? 1 : 4;
        el.setAttribute("x", x0.toFixed(1));
        el.setAttribute("width", Math.max(x1 - x0, 1.5).toFixed(1));
        el.setAttribute("y", (top + pad).toFixed(1));
        el.setAttribute("height", (rh - 2 * pad).toFixed(1));
      });
    });
    var byId = {};
    p._lanes.forEach(function (g) { byId[g.id] = g; });
    p._labels.forEach(function (t) {
      var g = byId[t.dataset.for];
      t.setAttribute("y", (g._mid + 4).toFixed(1));
      t.setAttribute("visibility", st.collapsed ? "hidden" : "visible");
    });
    p._links.forEach(function (l) {
      var s = time ? l.dataset.t : l.dataset.o;
      if (!s) { l.setAttribute("display", "none"); return; }
      l.removeAttribute("display");
      var q = s.split(" ").map(Number);
      var la = l.dataset.la ? byId[l.dataset.la] : null, lb = byId[l.dataset.lb];
      var ya = la ? la._mid : AX, yb = lb ? lb._mid : AX;
      l.setAttribute("d", ribbon(X(q[0]), X(q[1]), ya, X(q[2]), X(q[3]), yb, !la));
    });
    var h = AX + Math.max(rows, 1) * rh + PAD;
    p._svg.setAttribute("viewBox", "0 0 " + SVGW + " " + h.toFixed(1));
    p._svg.setAttribute("height", h.toFixed(1));
    axis(p, d0, d1, time, h);
  }

  function ribbon(xa0, xa1, ya, xb0, xb1, yb, ext) {
    xa1 = Math.max(xa1, xa0 + 1.5); xb1 = Math.max(xb1, xb0 + 1.5);
    var ym = (ya + yb) / 2;
    if (Math.abs(ya - yb) < 1) { ym = ya - 14; }
    if (ext) { ym = ya + (yb - ya) * 0.4; }
    function f(n) { return n.toFixed(1); }
    return "M" + f(xa0) + "," + f(ya) + " C" + f(xa0) + "," + f(ym) + " " + f(xb0) + "," + f(ym) + " " + f(xb0) + "," + f(yb) +
      " L" + f(xb1) + "," + f(yb) + " C" + f(xb1) + "," + f(ym) + " " + f(xa1) + "," + f(ym) + " " + f(xa1) + "," + f(ya) + " Z";
  }

  var timeSteps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5,
    72e5, 108e5, 216e5, 432e5, 864e5, 1728e5, 6048e5];
  function ticks(lo, hi, time) {
    var span = hi - lo, raw = span / 6, step;
    if (span <= 0) { return []; }
    if (time) {
      step = timeSteps[timeSteps.length - 1];
      for (var i = 0; i < timeSteps.length; i++) { if (timeSteps[i] >= raw) { step = timeSteps[i]; break; } }
    } else {
      var mag = Math.pow(10, Math.floor(Math.log10(raw)));
      step = mag;
      var ks = [1, 2, 5, 10];
      for (var j = 0; j < ks.length; j++) { if (ks[j] * mag >= raw) { step = ks[j] * mag; break; } }
      step = Math.max(step, 1);
    }
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v < hi && out.length < 50; v += step) { out.push([v, step]); }
    return out;
  }
  function fmtTime(ms, step) {
    var s = new Date(ms).toISOString();
    if (step >= 864e5) { return s.slice(0, 10); }
    if (step >= 6e4) { return s.slice(5, 10) + " " + s.slice(11, 16); }
    if (step >= 1e3) { return s.slice(11, 19); }
    return s.slice(17, 23);
  }
  function axis(p, d0, d1, time, h) {
    var g = p._svg.querySelector("g.axis");
    while (g.firstChild) { g.removeChild(g.firstChild); }
    ticks(d0, d1, time).forEach(function (t) {
      var x = (PX + (t[0] - d0) / (d1 - d0) * PW).toFixed(1);
      var ln = document.createElementNS(NS, "line");
      ln.setAttribute("x1", x); ln.setAttribute("x2", x); ln.setAttribute("y1", "18"); ln.setAttribute("y2", h.toFixed(1));
      var tx = document.createElementNS(NS, "text");
      tx.setAttribute("x", x); tx.setAttribute("y", "13");
      tx.textContent = time ? fmtTime(t[0], t[1]) : String(t[0]);
      g.appendChild(ln); g.appendChild(tx);
    });
    if (time) {
      var u = document.createElementNS(NS, "text");
      u.setAttribute("x", "144"); u.setAttribute("y", "13"); u.setAttribute("class", "lbl");
      u.textContent = "UTC";
      g.appendChild(u);
    }
  }

  function setMode(m) {
    mode = m;
    document.getElementById("mode-offset").classList.toggle("on", m === "offset");
    document.getElementById("mode-time").classList.toggle("on", m === "time");
    panels.forEach(layout);
  }
  document.getElementById("mode-offset").addEventListener("click", function () { setMode("offset"); });
  document.getElementById("mode-time").addEventListener("click", function () { setMode("time"); });

  function filter() {
    var q = document.getElementById("tl-filter").value.trim().toLowerCase();
    var onlyDups = document.getElementById("tl-dups").checked;
    panels.forEach(function (p) {
      var show = (!q || p.dataset.name.toLowerCase().indexOf(q) >= 0) && (!onlyDups || p.dataset.runs !== "0");
      p.classList.toggle("hidden", !show);
    });
  }
  document.getElementById("tl-filter").addEventListener("input", filter);
  document.getElementById("tl-dups").addEventListener("change", filter);

  // Sortable tables: columns with data-sort sort by the cells' data-v.
  document.querySelectorAll("table.sortable").forEach(function (tbl) {
    var ths = Array.prototype.slice.call(tbl.tHead.rows[0].cells);
    ths.forEach(function (th, col) {
      if (!th.dataset.sort) { return; }
      th.addEventListener("click", function () {
        var desc = !th.classList.contains("desc");
        ths.forEach(function (o) { o.classList.remove("asc", "desc"); });
        th.classList.add(desc ? "desc" : "asc");
        var body = tbl.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = Number(a.cells[col].dataset.v), y = Number(b.cells[col].dataset.v);
          return desc ? y - x : x - y;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
    tbl.tBodies[0].addEventListener("click", function (ev) {
      var tr = ev.target.closest("tr");
      if (!tr || !tr.dataset.timeline) { return; }
      var p = document.getElementById(tr.dataset.timeline);
      if (!p) { return; }
      p.classList.remove("hidden");
      p.scrollIntoView({ block: "center" });
      p._links.forEach(function (l) { l.classList.toggle("flash", l.dataset.run === tr.dataset.run); });
    });
  });

  // The cluster timeline: zoom into a window by dragging across it (a
  // brush), pan with shift+drag or the arrows, zoom with ctrl+wheel or the
  // buttons. Items outside the window are hidden and each lane's count is
  // what the window shows.
  var cluster = (function () {
    var svg = document.querySelector("svg.cluster");
    if (!svg) { return null; }
    var f = [num(svg.dataset.t0), num(svg.dataset.t1)], v = f.slice(), H = num(svg.dataset.h);
    if (f[1] <= f[0]) { f[1] = f[0] + 1; v[1] = f[1]; }
    var items = Array.prototype.slice.call(svg.querySelectorAll("rect[data-t0]"));
    var lanes = Array.prototype.slice.call(svg.querySelectorAll("g.clane"));
    var brush = svg.querySelector("rect.brush"), label = document.getElementById("cluster-window");
    function X(t) { return PX + (t - v[0]) / (v[1] - v[0]) * PW; }
    function layoutCluster() {
      var shown = 0;
      lanes.forEach(function (g) {
        var n = 0;
        g.querySelectorAll("rect[data-t0]").forEach(function (el) {
          var a = num(el.dataset.t0), b = num(el.dataset.t1);
          if (b < v[0] || a > v[1]) { el.setAttribute("display", "none"); return; }
          el.removeAttribute("display");
          n++;
          // Clipped to the plot: a span that starts before the window
          // starts at its left edge.
          var x0 = Math.max(X(a), PX - 1), x1 = Math.min(X(b), PX + PW + 1);
          el.setAttribute("x", (x0 - 1).toFixed(1));
          el.setAttribute("width", (Math.max(x1 - x0, 0) + 2.5).toFixed(1));
        });
        var c = g.querySelector("tspan.cnt"), all = g.querySelectorAll("rect[data-t0]").length;
        if (c) { c.textContent = n === all ? String(n) : n + "/" + all; }
        shown += n;
      });
      var g = svg.querySelector("g.axis");
      while (g.firstChild) { g.removeChild(g.firstChild); }
      ticks(v[0], v[1], true).forEach(function (t) {
        var x = X(t[0]).toFixed(1);
        var ln = document.createElementNS(NS, "line");
        ln.setAttribute("x1", x); ln.setAttribute("x2", x); ln.setAttribute("y1", "18"); ln.setAttribute("y2", H.toFixed(1));
        var tx = document.createElementNS(NS, "text");
        tx.setAttribute("x", x); tx.setAttribute("y", "13");
        tx.textContent = fmtTime(t[0], t[1]);
        g.appendChild(ln); g.appendChild(tx);
      });
      var whole = v[0] <= f[0] && v[1] >= f[1];
      if (label) {
        label.textContent = whole ? "whole range, " + shown + " item(s)" :
          new Date(v[0]).toISOString().replace("T", " ").slice(0, 23) + " – " + new Date(v[1]).toISOString().replace("T", " ").slice(0, 23) +
          " UTC, " + shown + " of " + items.length + " item(s)";
      }
      return shown;
    }
    function zoomTo(a, b) {
      var minW = 1, w = Math.max(minW, Math.min(b - a, f[1] - f[0]));
      var c = (a + b) / 2;
      a = Math.max(f[0], Math.min(c - w / 2, f[1] - w));
      v[0] = a; v[1] = a + w;
      return layoutCluster();
    }
    function pan(d) { return zoomTo(v[0] + d, v[1] + d); }
    function toUnits(ev) { var r = svg.getBoundingClientRect(); return (ev.clientX - r.left) * SVGW / r.width; }
    function timeAt(x) { return v[0] + (Math.max(PX, Math.min(x, PX + PW)) - PX) / PW * (v[1] - v[0]); }
    var drag = null;
    svg.addEventListener("pointerdown", function (ev) {
      drag = { x: toUnits(ev), v: v.slice(), pan: ev.shiftKey };
      svg.classList.add("drag");
      try { svg.setPointerCapture(ev.pointerId); } catch (e) { /* a synthetic pointer (the self-check) has none to capture */ }
    });
    svg.addEventListener("pointermove", function (ev) {
      if (!drag) { return; }
      var x = toUnits(ev);
      if (drag.pan) {
        var w = drag.v[1] - drag.v[0], d = (x - drag.x) / PW * w;
        v[0] = drag.v[0]; v[1] = drag.v[1];
        pan(-d);
        return;
      }
      var a = Math.max(PX, Math.min(drag.x, x)), b = Math.min(PX + PW, Math.max(drag.x, x));
      brush.removeAttribute("display");
      brush.setAttribute("x", a.toFixed(1)); brush.setAttribute("width", Math.max(b - a, 0).toFixed(1));
      brush.setAttribute("height", (H - 18).toFixed(1));
    });
    function end(ev) {
      if (!drag) { return; }
      var d = drag;
      drag = null;
      svg.classList.remove("drag");
      brush.setAttribute("display", "none");
      var x = toUnits(ev);
      if (!d.pan && Math.abs(x - d.x) >= 4) {
        zoomTo(timeAt(Math.min(d.x, x)), timeAt(Math.max(d.x, x)));
      }
    }
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", function () { drag = null; svg.classList.remove("drag"); brush.setAttribute("display", "none"); });
    svg.addEventListener("wheel", function (ev) {
      if (!ev.ctrlKey && !ev.altKey && !ev.metaKey) { return; }
      ev.preventDefault();
      var at = timeAt(toUnits(ev)), k = ev.deltaY > 0 ? 1.25 : 0.8;
      zoomTo(at - (at - v[0]) * k, at + (v[1] - at) * k);
    }, { passive: false });
    document.querySelectorAll("#cluster-zoom button").forEach(function (b) {
      b.addEventListener("click", function () {
        var w = v[1] - v[0], c = (v[0] + v[1]) / 2;
        if (b.dataset.act === "in") { zoomTo(c - w / 4, c + w / 4); }
        else if (b.dataset.act === "out") { zoomTo(c - w, c + w); }
        else if (b.dataset.act === "left") { pan(-w / 4); }
        else if (b.dataset.act === "right") { pan(w / 4); }
        else { zoomTo(f[0], f[1]); }
      });
    });
    // brushDrag drags the pointer across the plot from fraction a to b
    // of its width, as a user does, and returns the items then shown.
    function brushDrag(a, b) {
      var r = svg.getBoundingClientRect(), y = r.top + r.height / 2;
      [["pointerdown", a], ["pointermove", b], ["pointerup", b]].forEach(function (e) {
        var x = r.left + (PX + e[1] * PW) * r.width / SVGW;
        svg.dispatchEvent(new PointerEvent(e[0], { clientX: x, clientY: y, pointerId: 1, bubbles: true }));
      });
      return layoutCluster();
    }
    layoutCluster();
    return { items: items.length, full: f, zoomTo: zoomTo, brushDrag: brushDrag, reset: function () { return zoomTo(f[0], f[1]); } };
  })();

  // #timeline-only shows just the timeline (for screenshots and links).
  // #cluster-only the cluster timeline.
  if (location.hash === "#timeline-only" || location.hash === "#cluster-only") {
    var keep = location.hash === "#timeline-only" ? "timeline" : "cluster";
    document.querySelectorAll("body > section, body > footer, header nav").forEach(function (s) {
      if (s.id !== keep) { s.style.display = "none"; }
    });
  }
  panels.forEach(layout);

  // Self-check, read by the browser test (and harmless otherwise): the
  // drawn lanes and links against the data section, after exercising
  // every layout mode once.
  try {
    var data = JSON.parse(document.getElementById("ksleuth-data").textContent);
    setMode("time");
    panels.forEach(function (p) { p._st.collapsed = !p._st.collapsed; layout(p); p._st.collapsed = !p._st.collapsed; });
    setMode("offset");
    var sessions = 0, linked = 0;
    data.timelines.forEach(function (t) { sessions += t.sessions.length; linked += t.runs.length; });
    var result = {
      lanes: document.querySelectorAll("svg.timeline g.lane").length,
      links: document.querySelectorAll("svg.timeline path.link").length,
      sessions: sessions,
      runs: data.runs.length,
      linked_runs: linked,
      timelines: document.querySelectorAll("svg.timeline").length,
      run_rows: document.querySelectorAll("table.runs tbody tr").length,
      errors: errors
    };
    if (cluster) {
      // The cluster timeline's items: all at the whole range, fewer in
      // the last tenth of it (zoomed to, and brushed with the pointer),
      // all again after a reset.
      var f0 = cluster.full[0], f1 = cluster.full[1];
      result.cluster_items = cluster.items;
      result.cluster_full = cluster.reset();
      result.cluster_zoomed = cluster.zoomTo(f1 - (f1 - f0) / 10, f1);
      cluster.reset();
      result.cluster_brushed = cluster.brushDrag(0.9, 1);
      result.cluster_reset = cluster.reset();
    }
    document.getElementById("selftest").textContent = JSON.stringify(result);
  } catch (e) {
    errors.push("selftest: " + e);
    document.getElementById("selftest").textContent = JSON.stringify({ errors: errors });
  }
})();
