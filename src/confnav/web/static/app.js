// Progressive enhancement for confnav pages: search as you type, reading lists.
"use strict";

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderHits(list, hits) {
  list.replaceChildren();
  for (const hit of hits) {
    const item = el("li", { class: "hit", "data-id": hit.id });
    const link = el("a", { class: "title", href: `/paper/${encodeURIComponent(hit.id)}?venue=${encodeURIComponent(hit.venue)}` }, hit.title);
    const rating = hit.rating_mean ? ` · rating ${hit.rating_mean.toFixed(2)} (scale ${hit.rating_scale})` : "";
    const shape = hit.fields.includes("abstract") ? "" : " · title only, no abstract in the data";
    const meta = el("span", { class: "meta" }, ` ${hit.venue_name} · ${hit.decision}${rating}${shape}`);
    const snippet = el("p", { class: "snippet" });
    (hit.snippet || "").split("**").forEach((part, i) => snippet.append(i % 2 ? el("mark", {}, part) : document.createTextNode(part)));
    item.append(link, meta, snippet);
    list.append(item);
  }
}

function setupSearch() {
  const form = document.getElementById("search-form");
  if (!form) return;
  const list = document.getElementById("hits");
  const status = document.getElementById("status");
  let timer = null, serial = 0;
  const run = async () => {
    const params = new URLSearchParams(new FormData(form));
    for (const [k, v] of [...params]) if (!v) params.delete(k);
    history.replaceState(null, "", `/search?${params}`);
    if (!params.get("q") || !params.get("q").trim()) { list.replaceChildren(); status.textContent = ""; return; }
    params.set("limit", "20");
    const mine = ++serial;
    const response = await fetch(`/api/search?${params}`);
    const data = await response.json();
    if (mine !== serial) return;
    if (!response.ok) { status.textContent = data.error; list.replaceChildren(); return; }
    status.textContent = (data.notices || []).join(" ") || `${data.hits.length} papers (${data.mode})`;
    renderHits(list, data.hits);
  };
  form.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, 250); });
  form.addEventListener("submit", (event) => { event.preventDefault(); clearTimeout(timer); run(); });
}

// A server reachable from other machines needs the token it printed at start-up for writes:
// asked for once, kept in this browser, sent with every write.
const TOKEN_KEY = "confnav-token";

async function postJSON(url, body, method, retried) {
  const headers = { "Content-Type": "application/json" };
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) headers["X-Confnav-Token"] = token;
  const response = await fetch(url, { method: method || "POST", headers, body: body ? JSON.stringify(body) : undefined });
  const data = await response.json();
  if (response.status === 403 && !retried) {
    const given = window.prompt("This server needs the token printed when it started (confnav serve) to save reading lists:");
    if (given && given.trim()) { localStorage.setItem(TOKEN_KEY, given.trim()); return postJSON(url, body, method, true); }
  }
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function setupPaper() {
  const button = document.getElementById("add-to-list");
  if (!button) return;
  const status = document.getElementById("list-status");
  button.addEventListener("click", async () => {
    const name = document.getElementById("list-name").value.trim() || "to read";
    try {
      await postJSON("/api/lists", { name });
      await postJSON(`/api/lists/${encodeURIComponent(name)}/papers`, { id: button.dataset.id });
      status.textContent = `Added to “${name}”.`;
    } catch (error) { status.textContent = error.message; }
  });
}

function setupLists() {
  const form = document.getElementById("new-list");
  if (!form) return;
  const status = document.getElementById("lists-status");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = document.getElementById("new-list-name").value.trim();
    try {
      await postJSON("/api/lists", { name });
      location.href = `/lists?name=${encodeURIComponent(name)}`;
    } catch (error) { status.textContent = error.message; }
  });
  const section = document.getElementById("current-list");
  if (!section) return;
  const name = section.dataset.name;
  section.querySelectorAll("button.remove").forEach((button) => button.addEventListener("click", async () => {
    try {
      const venue = encodeURIComponent(button.dataset.venue);
      await postJSON(`/api/lists/${encodeURIComponent(name)}/papers/${encodeURIComponent(button.dataset.id)}?venue=${venue}`, null, "DELETE");
      button.closest("li").remove();
    } catch (error) { status.textContent = error.message; }
  }));
  const from = document.getElementById("recommend-from");
  const recommend = () => fetch(`/api/lists/${encodeURIComponent(name)}/recommend?limit=8&decision=${from.value}`)
    .then((r) => r.json()).then((data) => renderHits(document.getElementById("recommendations"), data.hits || []));
  from.addEventListener("change", recommend);
  recommend();
}

document.addEventListener("DOMContentLoaded", () => { setupSearch(); setupPaper(); setupLists(); });
