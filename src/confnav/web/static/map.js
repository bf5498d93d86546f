// The conference map: every paper a dot coloured by theme; zoom, pan, pinch, hover, tap, highlight, a decision
// filter, a legend, the keyboard; its state (zoom, position, highlight, filter) is kept in the page's URL.
"use strict";

// Distinct colours for any number of themes: hues a golden angle apart, lightness alternating.
function colour(t) {
  return `hsl(${Math.round((t * 137.508) % 360)}, 68%, ${[42, 58, 34][t % 3]}%)`;
}

async function setupMap() {
  const canvas = document.getElementById("map");
  if (!canvas) return;
  const tip = document.getElementById("map-tip");
  const query = document.getElementById("map-query");
  const status = document.getElementById("map-status");
  const response = await fetch(`/api/map?venue=${encodeURIComponent(canvas.dataset.venue)}`);
  const data = await response.json();
  if (!response.ok) { status.textContent = data.error; return; }
  const { ids, titles, theme, xy, accepted } = data;
  const url = new URLSearchParams(location.search);
  const decision = document.getElementById("map-decision");
  if (!data.decided) decision.closest("label").hidden = true;
  decision.value = url.get("decision") || "";
  const legend = document.getElementById("map-legend");
  data.themes.forEach((t, i) => {
    const item = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = "swatch"; swatch.style.background = colour(i);
    const link = document.createElement("a");
    link.href = `/themes/${encodeURIComponent(data.venue)}/${encodeURIComponent(t.id)}`; link.textContent = t.label;
    item.append(swatch, link, document.createTextNode(` (${t.size})`));
    legend.append(item);
  });
  const count = ids.length;
  canvas.dataset.points = String(count);
  const byTheme = data.themes.map(() => []);  // point indices per theme: one path and one fill per colour
  for (let i = 0; i < count; i++) byTheme[theme[i]].push(i);
  const ratio = window.devicePixelRatio || 1;
  let scale = Number(url.get("z")) || 1, highlighted = null, selected = -1;
  let offsetX = (Number(url.get("x")) || 0) * ratio, offsetY = (Number(url.get("y")) || 0) * ratio;
  function remember() {  // the map's state in the URL, so a view can be shared or reloaded
    const state = new URLSearchParams({ venue: data.venue });
    if (scale !== 1) state.set("z", scale.toFixed(2));
    if (offsetX || offsetY) { state.set("x", Math.round(offsetX / ratio)); state.set("y", Math.round(offsetY / ratio)); }
    if (query.value.trim()) state.set("q", query.value.trim());
    if (decision.value) state.set("decision", decision.value);
    history.replaceState(null, "", `/map?${state}`);
  }
  const shown = (i) => !decision.value || (decision.value === "accepted") === Boolean(accepted[i]);
  const screenX = new Float32Array(count), screenY = new Float32Array(count);
  let spanX = 1, spanY = 1;  // the layout's extent on the grid (its minimum is 0)
  for (let i = 0; i < count; i++) { spanX = Math.max(spanX, xy[2 * i]); spanY = Math.max(spanY, xy[2 * i + 1]); }

  function resize() {
    canvas.width = canvas.clientWidth * ratio; canvas.height = canvas.clientHeight * ratio; draw();
  }
  function toScreen(x, y) {
    const w = canvas.width, h = canvas.height, pad = 30 * ratio;
    const unit = Math.min((w - 2 * pad) / spanX, (h - 2 * pad) / spanY);  // one scale for both axes, as laid out
    const sx = w / 2 + (x - spanX / 2) * unit, sy = h / 2 - (y - spanY / 2) * unit;
    return [(sx - w / 2) * scale + w / 2 + offsetX, (sy - h / 2) * scale + h / 2 + offsetY];
  }
  function dots(ctx, indices, radius) {
    ctx.beginPath();
    for (const i of indices) { ctx.moveTo(screenX[i] + radius, screenY[i]); ctx.arc(screenX[i], screenY[i], radius, 0, 2 * Math.PI); }
    ctx.fill();
  }
  function project() {
    for (let i = 0; i < count; i++) [screenX[i], screenY[i]] = toScreen(xy[2 * i], xy[2 * i + 1]);
  }
  function draw() {
    const ctx = canvas.getContext("2d");
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    project();
    const r = Math.max(1.5, 2.2 * ratio * Math.sqrt(scale));
    byTheme.forEach((all, t) => {
      const members = all.filter(shown);
      ctx.fillStyle = colour(t);
      ctx.globalAlpha = highlighted ? 0.12 : 0.85;
      dots(ctx, highlighted ? members.filter((i) => !highlighted.has(ids[i])) : members, r);
      if (highlighted) { ctx.globalAlpha = 0.95; dots(ctx, members.filter((i) => highlighted.has(ids[i])), 2 * r); }
    });
    ctx.globalAlpha = 1;
    if (selected >= 0) {
      ctx.strokeStyle = getComputedStyle(canvas).color; ctx.lineWidth = 2 * ratio; ctx.beginPath();  // the text's colour: dark mode too
      ctx.arc(screenX[selected], screenY[selected], 3 * r, 0, 2 * Math.PI); ctx.stroke();
    }
    drawLabels(ctx);
  }
  // Theme labels, biggest theme first; a label that would overlap one already drawn moves above or below
  // its centre, or waits for more zoom.
  const bySize = [...data.themes].sort((a, b) => b.size - a.size);
  function drawLabels(ctx) {
    const height = 12 * ratio, placed = [];
    ctx.font = `${height}px system-ui, sans-serif`; ctx.textAlign = "center"; ctx.lineWidth = 3 * ratio;
    const clear = (r) => placed.every((p) => r.x + r.w < p.x || p.x + p.w < r.x || r.y + r.h < p.y || p.y + p.h < r.y);
    for (const t of bySize) {
      const [px, sy] = toScreen(t.xy[0], t.xy[1]);
      const w = ctx.measureText(t.label).width + 4 * ratio;
      if (px < 0 || px > canvas.width) continue;  // the theme is off screen
      const sx = Math.min(Math.max(px, w / 2), canvas.width - w / 2);  // kept whole at the edges
      for (const dy of [0, -1.3 * height, 1.3 * height]) {
        const box = { x: sx - w / 2, y: sy + dy - height, w, h: height * 1.3 };
        if (!clear(box)) continue;
        placed.push(box);
        ctx.strokeStyle = "#fff"; ctx.strokeText(t.label, sx, sy + dy);
        ctx.fillStyle = "#111"; ctx.fillText(t.label, sx, sy + dy);
        break;
      }
    }
    canvas.dataset.labels = String(placed.length);
  }
  function nearest(mx, my, within) {
    let best = -1, bestDistance = within === undefined ? Infinity : within ** 2;
    for (let i = 0; i < count; i++) {
      if (!shown(i)) continue;
      const d = (screenX[i] - mx) ** 2 + (screenY[i] - my) ** 2;
      if (d < bestDistance) { best = i; bestDistance = d; }
    }
    return best;
  }
  function pointer(event) {
    const rect = canvas.getBoundingClientRect();
    return nearest((event.clientX - rect.left) * ratio, (event.clientY - rect.top) * ratio, 8 * ratio);
  }
  function open(i) { location.href = `/paper/${encodeURIComponent(ids[i])}?venue=${encodeURIComponent(data.venue)}`; }
  function show(i, left, top) {
    if (i < 0) { tip.hidden = true; return; }
    tip.hidden = false; tip.textContent = titles[i]; tip.style.left = `${left}px`; tip.style.top = `${top}px`;
  }
  // Pointers: one drags, two pinch (zoom about their middle), a tap shows a title and a second tap opens it.
  const touching = new Map();
  let drag = null, moved = false, pinch = null, tapped = -1;
  function fromCentre(a, b) {  // the middle of two pointers, in canvas pixels from the canvas's centre
    const rect = canvas.getBoundingClientRect();
    return [((a[0] + b[0]) / 2 - rect.left - canvas.clientLeft - canvas.clientWidth / 2) * ratio,
      ((a[1] + b[1]) / 2 - rect.top - canvas.clientTop - canvas.clientHeight / 2) * ratio];
  }
  function zoomBy(factor) {
    scale = Math.min(40, Math.max(0.5, scale * factor)); draw(); remember();
  }
  canvas.addEventListener("wheel", (event) => {
    event.preventDefault();
    zoomBy(event.deltaY < 0 ? 1.2 : 1 / 1.2);
  }, { passive: false });
  canvas.addEventListener("pointerdown", (event) => {
    if (event.isPrimary) touching.clear();  // a new gesture: forget pointers whose "up" never came
    touching.set(event.pointerId, [event.clientX, event.clientY]);
    if (touching.size === 2) {  // the fingers' distance and middle, and the view, as the pinch starts
      const [a, b] = [...touching.values()];
      pinch = [Math.hypot(a[0] - b[0], a[1] - b[1]), scale, ...fromCentre(a, b), offsetX, offsetY]; drag = null; moved = true;
    } else { drag = [event.clientX, event.clientY, offsetX, offsetY]; moved = false; }
  });
  const release = (event) => { touching.delete(event.pointerId); if (touching.size < 2) pinch = null; drag = null; remember(); };
  window.addEventListener("pointerup", release);
  window.addEventListener("pointercancel", release);
  canvas.addEventListener("pointermove", (event) => {
    if (touching.has(event.pointerId)) touching.set(event.pointerId, [event.clientX, event.clientY]);
    if (pinch && touching.size === 2) {  // the point first under the fingers' middle stays under it
      const [a, b] = [...touching.values()], [mx, my] = fromCentre(a, b);
      scale = Math.min(40, Math.max(0.5, pinch[1] * Math.hypot(a[0] - b[0], a[1] - b[1]) / (pinch[0] || 1)));
      offsetX = mx - (pinch[2] - pinch[4]) * scale / pinch[1]; offsetY = my - (pinch[3] - pinch[5]) * scale / pinch[1];
      draw(); return;
    }
    if (drag) {
      const dx = event.clientX - drag[0], dy = event.clientY - drag[1];
      if (Math.abs(dx) + Math.abs(dy) > 3) moved = true;
      offsetX = drag[2] + dx * ratio; offsetY = drag[3] + dy * ratio; draw(); return;
    }
    if (event.pointerType === "mouse") show(pointer(event), event.clientX + 12, event.clientY + 12);
  });
  canvas.addEventListener("pointerleave", (event) => { if (event.pointerType === "mouse") tip.hidden = true; });
  canvas.addEventListener("click", (event) => {
    if (moved) return;
    const index = pointer(event);
    if (index < 0) { tip.hidden = true; tapped = -1; return; }
    if (event.pointerType === "touch" && tapped !== index) {  // first tap: the title; a second tap opens it
      tapped = index; show(index, Math.min(event.clientX + 12, window.innerWidth - 200), event.clientY + 12);
      status.textContent = `${titles[index]} (tap again to open it)`;
      return;
    }
    open(index);
  });
  document.getElementById("zoom-in").addEventListener("click", () => zoomBy(1.3));
  document.getElementById("zoom-out").addEventListener("click", () => zoomBy(1 / 1.3));
  document.getElementById("zoom-reset").addEventListener("click", () => { offsetX = 0; offsetY = 0; scale = 1; zoomBy(1); });
  // Keyboard: arrows pan, + and - zoom, the paper nearest the centre is ringed and named, Enter opens it.
  canvas.addEventListener("keydown", (event) => {
    const step = 40 * ratio;
    const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
    if (event.key === "Enter" && selected >= 0) { open(selected); return; }
    if (moves[event.key]) { offsetX += moves[event.key][0]; offsetY += moves[event.key][1]; }
    else if (event.key === "+" || event.key === "=") scale = Math.min(40, scale * 1.2);
    else if (event.key === "-") scale = Math.max(0.5, scale / 1.2);
    else return;
    event.preventDefault(); project();
    selected = nearest(canvas.width / 2, canvas.height / 2); draw(); remember();
    const rect = canvas.getBoundingClientRect();
    show(selected, rect.left + screenX[selected] / ratio + 12, rect.top + screenY[selected] / ratio + 12);
    status.textContent = `${titles[selected]} (Enter opens it)`;
  });
  canvas.addEventListener("blur", () => { selected = -1; tip.hidden = true; draw(); });
  // Highlight: the papers whose words match (keyword search), never the merely nearest in meaning.
  let timer = null;
  async function highlight() {
    const q = query.value.trim();
    remember();
    if (!q) { highlighted = null; status.textContent = ""; draw(); return; }
    const r = await fetch(`/api/search?mode=keyword&limit=100&venue=${encodeURIComponent(data.venue)}&q=${encodeURIComponent(q)}`);
    const found = await r.json();
    if (!r.ok) { highlighted = null; status.textContent = found.error; draw(); return; }
    highlighted = new Set((found.hits || []).map((h) => h.id));
    const total = found.matching || 0;
    const papers = (n) => `${n} paper${n === 1 ? " matches" : "s match"}`;
    status.textContent = total > highlighted.size
      ? `${papers(total)}; the ${highlighted.size} best are highlighted` : `${papers(highlighted.size)}, highlighted`;
    draw();
  }
  query.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(highlight, 300); });
  document.getElementById("map-controls").addEventListener("submit", (event) => {  // Enter highlights, never reloads
    event.preventDefault(); clearTimeout(timer); highlight();
  });
  decision.addEventListener("change", () => { draw(); remember(); });
  window.addEventListener("resize", resize);
  resize();
  // For tests and benchmarks: where a paper is drawn (CSS pixels relative to the canvas), and a redraw.
  window.confnavMap = { ids, at: (i) => [screenX[i] / ratio, screenY[i] / ratio], draw };
  canvas.dataset.ready = "1";
  status.textContent = `${count.toLocaleString("en")} papers`;
  if (url.get("q")) { query.value = url.get("q"); highlight(); }
}

document.addEventListener("DOMContentLoaded", setupMap);
