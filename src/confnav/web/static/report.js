// Reports inside the app: on a touch screen a tap on a cited paper opens its TL;DR card (hover and focus
// open it elsewhere); a second tap on it, a tap elsewhere or Escape closes it. An open card links onwards.
"use strict";

(() => {
  const about = document.querySelector('meta[name="confnav-report"]');
  const venue = (/venue=(\S+)/.exec(about ? about.content : "") || [])[1];
  const touching = () => pointer === "touch" || pointer === "pen";
  let pointer = "mouse";
  let opened = null;

  function close() {
    if (!opened) return;
    opened.querySelector(".card").style.display = "none";  // over a sticky :hover or :focus-within too
    opened = null;
  }

  function addLinks(cite, card) {  // a tap on the title no longer follows it: the card offers the way on
    if (card.querySelector(".card-links")) return;
    const line = document.createElement("span");
    line.className = "card-links";
    const here = document.createElement("a");
    here.href = `/paper/${encodeURIComponent(cite.dataset.paper)}${venue ? `?venue=${encodeURIComponent(venue)}` : ""}`;
    here.textContent = "Open in confnav";
    line.append(document.createElement("br"), here);
    if (cite.dataset.url) {  // the title opens the app's page; its own page out there is kept here
      const away = document.createElement("a");
      away.href = cite.dataset.url;
      away.rel = "noopener noreferrer";
      away.textContent = "its own page";
      line.append(" · ", away);
    }
    card.append(line);
  }

  function open(cite) {
    close();
    const card = cite.querySelector(".card");
    addLinks(cite, card);
    card.style.left = "0px";
    card.style.display = "block";
    const box = card.getBoundingClientRect();
    const width = document.documentElement.clientWidth;
    card.style.left = `${Math.max(8 - box.left, Math.min(0, width - 8 - box.right))}px`;  // on the screen
    opened = cite;
  }

  function reset() {  // a mouse or the keyboard again: the stylesheet's hover and focus rules decide
    close();
    for (const card of document.querySelectorAll(".cite .card")) card.style.display = "";
  }

  document.addEventListener("pointerdown", (event) => {
    pointer = event.pointerType;
    if (!touching()) reset();
  }, true);
  document.addEventListener("click", (event) => {
    if (!touching() || event.target.closest(".card")) return;  // links in an open card work as links
    const cite = event.target.closest(".cite");
    if (!cite) { close(); return; }
    event.preventDefault();
    if (cite === opened) close(); else open(cite);
  });
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") close(); else if (event.key === "Tab") reset(); });
})();
