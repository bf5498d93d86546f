// The conference map: every paper a dot coloured by theme; zoom, pan, hover, click, highlight.
"use strict";

const PALETTE = ["#1f77b4","#ff7f0e","#2ca02c","#d62728","#9467bd","#8c564b","#e377c2","#7f7f7f","#bcbd22","#17becf",
  "#393b79","#637939","#8c6d31","#843c39","#7b4173","#3182bd","#e6550d","#31a354","#756bb1","#636363"];

async function setupMap() {
  const canvas = document.getElementById("map");
  if (!canvas) return;
  const tip = document.getElementById("map-tip");
  const status = document.getElementById("map-status");
  const response = await fetch(`/api/map?venue=${encodeURIComponent(canvas.dataset.venue)}`);
  const data = await response.json();
  if (!response.ok) { status.textContent = data.error; return; }
  const points = data.points;  // [id, x, y, theme, title]
  canvas.dataset.points = String(points.length);
  const xs = points.map((p) => p[1]), ys = points.map((p) => p[2]);
  const minX = Math.min(...xs), maxX = Math.max(...xs), minY = Math.min(...ys), maxY = Math.max(...ys);
  let scale = 1, offsetX = 0, offsetY = 0, highlighted = null, hover = -1;
  const ratio = window.devicePixelRatio || 1;

  function resize() {
    canvas.width = canvas.clientWidth * ratio; canvas.height = canvas.clientHeight * ratio; draw();
  }
  function toScreen(x, y) {
    const w = canvas.width, h = canvas.height, pad = 30 * ratio;
    const sx = pad + ((x - minX) / (maxX - minX || 1)) * (w - 2 * pad);
    const sy = pad + ((maxY - y) / (maxY - minY || 1)) * (h - 2 * pad);
    return [(sx - w / 2) * scale + w / 2 + offsetX, (sy - h / 2) * scale + h / 2 + offsetY];
  }
  function draw() {
    const ctx = canvas.getContext("2d");
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const r = Math.max(1.5, 2.2 * ratio * Math.sqrt(scale));
    for (let i = 0; i < points.length; i++) {
      const p = points[i];
      const [sx, sy] = toScreen(p[1], p[2]);
      ctx.globalAlpha = highlighted && !highlighted.has(p[0]) ? 0.12 : 0.85;
      ctx.fillStyle = PALETTE[p[3] % PALETTE.length];
      ctx.beginPath(); ctx.arc(sx, sy, highlighted && highlighted.has(p[0]) ? r * 2 : r, 0, 2 * Math.PI); ctx.fill();
    }
    ctx.globalAlpha = 1;
    ctx.font = `${12 * ratio}px system-ui, sans-serif`; ctx.textAlign = "center"; ctx.lineWidth = 3 * ratio;
    for (const theme of data.themes) {
      const [sx, sy] = toScreen(theme.x, theme.y);
      ctx.strokeStyle = "#fff"; ctx.strokeText(theme.label, sx, sy); ctx.fillStyle = "#111"; ctx.fillText(theme.label, sx, sy);
    }
  }
  function nearest(event) {
    const rect = canvas.getBoundingClientRect();
    const mx = (event.clientX - rect.left) * ratio, my = (event.clientY - rect.top) * ratio;
    let best = -1, bestDistance = (8 * ratio) ** 2;
    for (let i = 0; i < points.length; i++) {
      const [sx, sy] = toScreen(points[i][1], points[i][2]);
      const d = (sx - mx) ** 2 + (sy - my) ** 2;
      if (d < bestDistance) { best = i; bestDistance = d; }
    }
    return best;
  }
  let drag = null, moved = false;
  canvas.addEventListener("wheel", (event) => {
    event.preventDefault();
    const factor = event.deltaY < 0 ? 1.2 : 1 / 1.2;
    scale = Math.min(40, Math.max(0.5, scale * factor)); draw();
  }, { passive: false });
  canvas.addEventListener("pointerdown", (event) => { drag = [event.clientX, event.clientY, offsetX, offsetY]; moved = false; });
  window.addEventListener("pointerup", () => { drag = null; });
  canvas.addEventListener("pointermove", (event) => {
    if (drag) {
      const dx = event.clientX - drag[0], dy = event.clientY - drag[1];
      if (Math.abs(dx) + Math.abs(dy) > 3) moved = true;
      offsetX = drag[2] + dx * ratio; offsetY = drag[3] + dy * ratio; draw(); return;
    }
    hover = nearest(event);
    if (hover >= 0) {
      tip.hidden = false; tip.textContent = points[hover][4];
      tip.style.left = `${event.clientX + 12}px`; tip.style.top = `${event.clientY + 12}px`;
    } else tip.hidden = true;
  });
  canvas.addEventListener("click", (event) => {
    if (moved) return;
    const index = nearest(event);
    if (index >= 0) location.href = `/paper/${encodeURIComponent(points[index][0])}?venue=${encodeURIComponent(data.venue)}`;
  });
  canvas.addEventListener("keydown", (event) => {
    const step = 40 * ratio;
    const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
    if (moves[event.key]) { offsetX += moves[event.key][0]; offsetY += moves[event.key][1]; }
    else if (event.key === "+" || event.key === "=") scale = Math.min(40, scale * 1.2);
    else if (event.key === "-") scale = Math.max(0.5, scale / 1.2);
    else return;
    event.preventDefault(); draw();
  });
  const query = document.getElementById("map-query");
  let timer = null;
  query.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const q = query.value.trim();
      if (!q) { highlighted = null; status.textContent = ""; draw(); return; }
      const r = await fetch(`/api/search?limit=100&venue=${encodeURIComponent(data.venue)}&q=${encodeURIComponent(q)}`);
      const found = await r.json();
      highlighted = new Set((found.hits || []).map((h) => h.id));
      status.textContent = r.ok ? `${highlighted.size} papers highlighted` : found.error;
      draw();
    }, 300);
  });
  window.addEventListener("resize", resize);
  resize();
  // For tests and scripts: where a paper is drawn, in CSS pixels relative to the canvas.
  window.confnavMap = { ids: points.map((p) => p[0]), at: (i) => toScreen(points[i][1], points[i][2]).map((v) => v / ratio) };
  canvas.dataset.ready = "1";
  status.textContent = `${points.length} papers`;
}

document.addEventListener("DOMContentLoaded", setupMap);
