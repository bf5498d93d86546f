// Progressive enhancement for confnav pages: search as you type, reading lists.
"use strict";

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderHits(list, hits, first) {
  list.replaceChildren();
  if (first) list.setAttribute("start", String(first));
  for (const hit of hits) {
    const item = el("li", { class: "hit", "data-id": hit.id, "data-venue": hit.venue });
    const link = el("a", { class: "title", href: `/paper/${encodeURIComponent(hit.id)}?venue=${encodeURIComponent(hit.venue)}` }, hit.title);
    const badge = el("span", { class: `badge ${hit.outcome}` }, hit.decision);
    const authors = el("span", { class: "authors" });
    (hit.authors || []).slice(0, 6).forEach((name, i) => {
      if (i) authors.append(document.createTextNode(", "));
      authors.append(el("a", { href: `/author/${encodeURIComponent(name)}` }, name));
    });
    if ((hit.authors || []).length > 6) authors.append(document.createTextNode(` and ${hit.authors.length - 6} more`));
    const rating = hit.rating_mean ? ` · rating ${hit.rating_mean.toFixed(2)} (scale ${hit.rating_scale})` : "";
    const shape = hit.fields.includes("abstract") ? "" : " · title only, no abstract in the data";
    const meta = el("span", { class: "meta" }, `${hit.venue_name}${rating}${shape}`);
    const snippet = el("p", { class: "snippet" });
    (hit.snippet || "").split("**").forEach((part, i) => snippet.append(i % 2 ? el("mark", {}, part) : document.createTextNode(part)));
    const add = el("button", { type: "button", class: "add-hit", "data-id": hit.id, "data-venue": hit.venue,
      "aria-label": `Add “${hit.title}” to the reading list` }, "+ reading list");
    item.append(link, badge, authors, meta);
    const links = resourceLinks(hit);
    if (links) item.append(document.createTextNode(" "), links);
    item.append(snippet, add, document.createTextNode(" "), markButtons(hit));
    list.append(item);
  }
}

// The code, project, video, slides and poster links of a hit (as templates/_resources.html draws them); http(s) only.
function resourceLinks(hit) {
  const found = Object.entries(hit.resources || {}).filter(([, url]) => /^https?:\/\//i.test(url));
  if (!found.length) return null;
  const span = el("span", { class: "resources" });
  found.forEach(([kind, url], i) => {
    if (i) span.append(document.createTextNode(" "));
    span.append(el("a", { class: `resource ${kind}`, href: url, rel: "noopener noreferrer",
      "aria-label": `${kind[0].toUpperCase()}${kind.slice(1)} of “${hit.title}”` }, kind));
  });
  return span;
}

// "Like" / "Not for me" on a hit or a paper page (as templates/_marks.html draws them).
function markButtons(hit) {
  const span = el("span", { class: "marks" });
  for (const [mark, text, label] of [["like", "Like", "Like"], ["dislike", "Not for me", "Not for me:"]]) {
    if (mark === "dislike") span.append(document.createTextNode(" "));
    span.append(el("button", { type: "button", class: "mark", "data-mark": mark, "data-id": hit.id, "data-venue": hit.venue,
      "data-title": hit.title, "aria-pressed": String(marked[markKey(hit.venue, hit.id)] === mark), "aria-label": `${label} “${hit.title}”` }, text));
  }
  return span;
}

const marked = {};  // "venue\nid" → "like" | "dislike": the profile's marks, read once per page
const markKey = (venue, id) => `${venue}\n${id}`;

function showMarks() {
  document.querySelectorAll("button.mark").forEach((b) =>
    b.setAttribute("aria-pressed", String(marked[markKey(b.dataset.venue, b.dataset.id)] === b.dataset.mark)));
}

// Marks go to the page's profile (the one this browser chose; on a shared server, opened by its link):
// a press likes or dislikes, a second press on the pressed button takes the mark back.
function setupMarks() {
  const profile = document.body.dataset.profile;
  const status = document.getElementById("mark-status");
  const say = (text) => { if (status) status.textContent = text; };
  const base = profile ? `/api/profiles/${encodeURIComponent(profile)}/marks` : "";
  if (profile && document.querySelector("button.mark")) {
    fetch(base).then((r) => (r.ok ? r.json() : { marks: [] })).then((data) => {
      for (const m of data.marks) marked[markKey(m.venue, m.id)] = m.mark;
      showMarks();
    }).catch(() => {});
  }
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button.mark");
    if (!button) return;
    if (!profile) { say("Open your profile's link first (or create a profile on the For you page)."); return; }
    const { id, venue, mark, title } = button.dataset;
    const undo = button.getAttribute("aria-pressed") === "true";
    try {
      if (undo) {
        await postJSON(`${base}/${encodeURIComponent(id)}?venue=${encodeURIComponent(venue)}`, null, "DELETE");
        delete marked[markKey(venue, id)];
      } else {
        await postJSON(base, { id, venue, mark });
        marked[markKey(venue, id)] = mark;
      }
      showMarks();
      say(undo ? `Mark taken back: “${title}”.` : `${mark === "like" ? "Liked" : "Not for you"}: “${title}”. For you learns from it.`);
    } catch (error) { say(error.message); }
  });
  const form = document.getElementById("new-profile");
  if (!form) return;
  const made = document.getElementById("new-profile-status");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = document.getElementById("new-profile-name").value.trim();
    try {
      const data = await postJSON("/api/profiles", name ? { name } : {});
      const link = new URL(data.link, location.href).href;
      made.replaceChildren(document.createTextNode(`Profile “${data.name}” is yours. Keep its link, shown only now: `),
        el("a", { href: link }, link));
    } catch (error) { made.textContent = error.message; }
  });
}

// "+ reading list" on any hit: adds the paper to the list named in the page's list box (default "to read").
function setupHitLists() {
  document.addEventListener("click", async (event) => {
    const button = event.target.closest("button.add-hit");
    if (!button) return;
    const box = document.getElementById("list-name");
    const name = (box && box.value.trim()) || document.body.dataset.defaultList || "to read";
    const status = document.getElementById("list-status");
    try {
      await postJSON("/api/lists", { name });
      await postJSON(`/api/lists/${encodeURIComponent(name)}/papers`, { id: button.dataset.id, venue: button.dataset.venue });
      button.textContent = `✓ in “${name}”`;
      if (status) status.textContent = `Added to “${name}”.`;
    } catch (error) { if (status) status.textContent = error.message; }
  });
}

function setupSearch() {
  const form = document.getElementById("search-form");
  if (!form) return;
  const list = document.getElementById("hits");
  const status = document.getElementById("status");
  let timer = null, serial = 0;
  const run = async () => {
    const params = new URLSearchParams(new FormData(form));
    for (const [k, v] of [...params]) if (!v || (k === "mode" && v === "hybrid") || (k === "sort" && v === "relevance") || (k === "limit" && v === "20")) params.delete(k);
    history.replaceState(null, "", `/search?${params}`);
    const words = Boolean(params.get("q") && params.get("q").trim());
    const filtered = [...params.keys()].some((k) => !["q", "mode", "sort", "limit"].includes(k));
    const pages = document.querySelector("nav.pages");
    if (!words && !filtered) {  // as the page says it: nothing to search for or list yet
      list.replaceChildren(); if (pages) pages.replaceChildren(); status.textContent = form.dataset.hint || ""; return;
    }
    const limit = Number(form.elements.limit ? form.elements.limit.value : 20);
    params.set("limit", String(limit + 1));  // one more than shown: whether a next page holds papers
    const mine = ++serial;
    const response = await fetch(`/api/search?${params}`);
    const data = await response.json();
    if (mine !== serial) return;
    if (!response.ok) { status.textContent = data.error; list.replaceChildren(); return; }
    const hits = data.hits.slice(0, limit), n = data.matching;
    const papers = n === null ? "" : `${n.toLocaleString("en")} paper${n === 1 ? "" : "s"}`;
    const count = n === null ? "" : (words
      ? `${papers} match${n === 1 ? "es" : ""} some of these words${data.mode === "keyword" ? "" : ", more are close in meaning"} · `
      : `${papers} meet${n === 1 ? "s" : ""} these filters · `);
    status.textContent = (data.notices || []).join(" ") + (hits.length ? `${count}showing 1–${hits.length}` : "no papers");
    renderHits(list, hits, 1);
    if (pages) {
      pages.replaceChildren();
      if (data.hits.length > limit) { params.set("page", "2"); params.set("limit", String(limit)); if (limit === 20) params.delete("limit"); pages.append(el("a", { rel: "next", href: `/search?${params}` }, "Next →")); }
    }
  };
  form.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, 250); });
  form.addEventListener("submit", (event) => { event.preventDefault(); clearTimeout(timer); run(); });
}

// A server reachable from other machines needs the token it printed at start-up for writes:
// asked for once, kept in this browser, sent with every write.
const TOKEN_KEY = "confnav-token";

// What a write to `url` does, in the words of the token prompt.
function actionOf(url) {
  const path = new URL(url, location.href).pathname;
  if (path.includes("/marks")) return "record likes and dislikes";
  if (path.includes("/watches")) return "keep watches";
  if (path.endsWith("/import")) return "import papers into a profile";
  if (path.startsWith("/api/lists")) return "save reading lists";
  if (path.startsWith("/api/profiles")) return "make a profile";
  return "save changes";
}

async function postJSON(url, body, method, retried) {
  const headers = { "Content-Type": "application/json" };
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) headers["X-Confnav-Token"] = token;
  const response = await fetch(url, { method: method || "POST", headers, body: body ? JSON.stringify(body) : undefined });
  const data = await response.json();
  if (response.status === 403 && !retried) {
    const given = window.prompt(`This server needs the token printed when it started (confnav serve) to ${actionOf(url)}:`);
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
    const name = document.getElementById("list-name").value.trim() || document.body.dataset.defaultList || "to read";
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
  const query = () => from.value === "all" ? "include_rejected=true" : `decision=${from.value}`;
  const recommend = () => fetch(`/api/lists/${encodeURIComponent(name)}/recommend?limit=8&${query()}`)
    .then((r) => r.json()).then((data) => renderHits(document.getElementById("recommendations"), data.hits || []));
  from.addEventListener("change", recommend);
  recommend();
}

// Keys: "/" goes to the search box (from any page), ArrowDown / ArrowUp (or j / k) move through the hits.
function setupKeys() {
  document.addEventListener("keydown", (event) => {
    const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName) || event.target.isContentEditable;
    if (event.key === "/" && !typing) {
      event.preventDefault();
      const box = document.getElementById("q");
      if (box) box.focus(); else location.href = "/search";
      return;
    }
    if (!document.getElementById("search-form")) return;  // arrows scroll every other page as usual
    const titles = [...document.querySelectorAll("#hits li a.title")];
    if (!titles.length || (typing && event.target.id !== "q")) return;
    const down = event.key === "ArrowDown" || (!typing && event.key === "j");
    const up = event.key === "ArrowUp" || (!typing && event.key === "k");
    if (!down && !up) return;
    const at = titles.indexOf(document.activeElement);
    const next = down ? Math.min(at + 1, titles.length - 1) : at - 1;
    event.preventDefault();
    if (next < 0) { const box = document.getElementById("q"); if (box) box.focus(); return; }
    titles[next].focus();
  });
}

// A link to a folded review (a sentence of the reviewers' summary) opens it.
function openLinkedReview() {
  const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (target && target.tagName === "DETAILS") target.open = true;
}
window.addEventListener("hashchange", openLinkedReview);

document.addEventListener("DOMContentLoaded", () => { setupSearch(); setupPaper(); setupLists(); setupHitLists(); setupMarks(); setupKeys(); openLinkedReview(); });
