// The news page: add and stop watches, import a library or a person into the profile (postJSON is app.js's).
"use strict";

function profileBase() {
  return `/api/profiles/${encodeURIComponent(document.body.dataset.profile)}`;
}

function setupWatches() {
  const form = document.getElementById("new-watch");
  if (!form) return;
  const status = document.getElementById("watch-status");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const kind = form.querySelector("input[name=kind]:checked").value;
    const value = document.getElementById("watch-value").value.trim();
    const venue = document.getElementById("watch-venue").value;
    const body = { venue: venue || null };
    if (kind === "decisions") body.decisions = true; else body[kind] = value;
    try {
      const made = await postJSON(`${profileBase()}/watches`, body);
      status.textContent = `Watching ${made.says}.`;
      window.location.reload();
    } catch (error) { status.textContent = error.message; }
  });
  for (const button of document.querySelectorAll(".drop-watch")) {
    button.addEventListener("click", async () => {
      try {
        const gone = await postJSON(`${profileBase()}/watches/${encodeURIComponent(button.dataset.id)}`, null, "DELETE");
        status.textContent = `No longer watching ${gone.says}.`;
        button.closest("li").remove();
      } catch (error) { status.textContent = error.message; }
    });
  }
}

function setupImport() {
  const form = document.getElementById("import-papers");
  if (!form) return;
  const status = document.getElementById("import-status");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = document.getElementById("import-file").files[0];
    const pasted = document.getElementById("import-text").value;
    const person = document.getElementById("import-person").value.trim();
    const body = person ? { person } : { text: file ? await file.text() : pasted, filename: file ? file.name : null };
    status.textContent = "Importing…";
    try {
      const done = await postJSON(`${profileBase()}/import`, body);
      const skipped = done.problems.length ? ` Skipped ${done.problems.length}: ${done.problems.slice(0, 3).join("; ")}` : "";
      status.textContent = `${done.matched} matched papers in the store, ${done.own} kept as your own texts, ${done.added} new.${skipped}`;
    } catch (error) { status.textContent = error.message; }
  });
}

document.addEventListener("DOMContentLoaded", () => { setupWatches(); setupImport(); });
