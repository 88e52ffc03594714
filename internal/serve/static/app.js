// grove serve's only script (SPEC §9): keys, and live updates from
// /events. The pages work without it. No inline script, no eval: the
// Content-Security-Policy allows this file only.
"use strict";
(function () {
  const body = document.body;
  const page = body.dataset.page || "";
  const session = body.dataset.session || "";

  // Keys: "/" search, j/k next/previous entry, [ and ] sibling branch.
  const entries = () => Array.from(document.querySelectorAll("#entries > [id^='entry-']:not(.unshown)"));
  let current = -1;
  function select(i) {
    const list = entries();
    if (list.length === 0) return;
    i = Math.max(0, Math.min(list.length - 1, i));
    if (current >= 0 && list[current]) list[current].classList.remove("current");
    current = i;
    list[i].classList.add("current");
    list[i].scrollIntoView({ block: "start" });
    history.replaceState(null, "", "#" + list[i].id);
  }
  function currentIndex() {
    const list = entries();
    if (current >= 0 && current < list.length) return current;
    const h = location.hash.slice(1);
    const at = list.findIndex((e) => e.id === h);
    if (at >= 0) return at;
    // The first entry whose top is in view.
    const top = document.querySelector("header.top").getBoundingClientRect().bottom;
    const seen = list.findIndex((e) => e.getBoundingClientRect().bottom > top);
    return seen;
  }
  // step moves the selection by d entries; the first key press with
  // nothing selected (no current entry, no #entry- in the URL) selects
  // the first entry in view.
  function step(d) {
    const list = entries();
    const chosen = (current >= 0 && current < list.length) || list.some((e) => e.id === location.hash.slice(1));
    const i = currentIndex();
    select(chosen ? i + d : Math.max(i, 0));
  }
  // The branch navigation that governs the current entry: the last one
  // above it, else the first on the page.
  function branchNav() {
    const navs = Array.from(document.querySelectorAll("nav.branches"));
    if (navs.length === 0) return null;
    const list = entries();
    const i = currentIndex();
    const el = list[i];
    let pick = null;
    for (const n of navs) {
      if (el && (n.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)) pick = n;
    }
    return pick || navs[0];
  }
  function sibling(step) {
    const nav = branchNav();
    if (!nav) return;
    const links = Array.from(nav.querySelectorAll("li > a"));
    const here = links.findIndex((a) => a.getAttribute("aria-current") === "true");
    const to = links[here + step];
    if (to) location.href = to.href;
  }
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const t = ev.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) {
      if (ev.key === "Escape") t.blur();
      return;
    }
    switch (ev.key) {
      case "/": {
        const q = document.getElementById("q");
        if (q) { ev.preventDefault(); q.focus(); q.select(); }
        break;
      }
      case "j": step(+1); break;
      case "k": step(-1); break;
      case "[": sibling(-1); break;
      case "]": sibling(+1); break;
    }
  });

  // Copy buttons: each code.copyable (a leaf's resume command) gets one,
  // which puts the code's text on the clipboard (the Clipboard API, a
  // secure context's: loopback is one); where the browser refuses, the
  // text is selected for Ctrl-C instead. Made here, so a page without
  // script shows no button that does nothing; made again after a live
  // update replaces the page's main.
  function addCopyButtons() {
    for (const code of document.querySelectorAll("code.copyable[id]")) {
      if (code.nextElementSibling && code.nextElementSibling.matches("button.copy")) continue;
      const b = document.createElement("button");
      b.type = "button";
      b.className = "copy";
      b.dataset.copy = code.id;
      b.textContent = "Copy";
      b.title = "copy the command";
      code.after(b);
    }
  }
  document.addEventListener("click", async (ev) => {
    const b = ev.target.closest && ev.target.closest("button.copy[data-copy]");
    if (!b) return;
    const code = document.getElementById(b.dataset.copy);
    if (!code) return;
    try {
      await navigator.clipboard.writeText(code.textContent);
      b.textContent = "Copied";
    } catch (e) {
      const range = document.createRange();
      range.selectNodeContents(code);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      b.textContent = "Selected: Ctrl-C copies";
    }
    setTimeout(() => { b.textContent = "Copy"; }, 2000);
  });
  addCopyButtons();
  body.addEventListener("grove:updated", addCopyButtons);

  // Live updates: /events says which sessions changed (all when its list
  // is empty); a page showing one of them fetches itself again and puts
  // the new main in place, keeping the scroll position.
  if (!window.EventSource) return;
  const live = document.getElementById("live");
  // A page fetches itself at most once a second, and no sooner after its
  // last fetch than four times what that fetch took: a listing that takes
  // the server a second is not asked for again and again while an agent
  // writes.
  let busy = false, again = false, last = 0, took = 0;
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    const wait = last + Math.max(1000, 4 * took) - Date.now();
    if (wait > 0) await new Promise((ok) => setTimeout(ok, wait));
    last = Date.now();
    try {
      const res = await fetch(location.pathname + location.search, { headers: { "Accept": "text/html" } });
      if (!res.ok && res.status !== 404 && res.status !== 409) return;
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      const fresh = doc.getElementById("main");
      const old = document.getElementById("main");
      if (!fresh || !old) return;
      if (fresh.innerHTML !== old.innerHTML) {
        const y = window.scrollY;
        old.replaceWith(document.adoptNode(fresh));
        current = -1;
        window.scrollTo(0, y);
        if (live) { live.hidden = false; live.textContent = "updated " + new Date().toLocaleTimeString(); }
        body.dispatchEvent(new CustomEvent("grove:updated"));
      }
    } catch (e) {
      // the server is gone or restarting: the next notice tries again
    } finally {
      took = Date.now() - last;
      busy = false;
      if (again) { again = false; refresh(); }
    }
  }
  const es = new EventSource("/events");
  es.addEventListener("ready", () => { body.dataset.live = "ready"; });
  es.addEventListener("changed", (ev) => {
    let sessions = [];
    try { sessions = JSON.parse(ev.data).sessions || []; } catch (e) { sessions = []; }
    // data-session may be a prefix of the id (an error page says what
    // was asked for); the notice names whole ids.
    if (session && sessions.length > 0 && !sessions.some((id) => id.startsWith(session))) return;
    if (page === "error") {
      // The session this page could not show changed (a file ahead of
      // the index, one not indexed yet): load it again, whole.
      if (session) location.reload();
      return;
    }
    refresh();
  });
})();
