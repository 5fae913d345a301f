// The journal page's script: live updates and busy buttons. It never builds
// markup from data: a change re-fetches the page the server rendered (and
// escaped) and swaps in its #live part.
"use strict";
(() => {
  const body = document.body;

  // A submitted form's button says what is happening and cannot be pressed twice.
  document.addEventListener("submit", (ev) => {
    const form = ev.target;
    form.dataset.submitting = "1";
    const button = form.querySelector("button[type=submit]");
    if (button) {
      button.disabled = true;
      if (button.dataset.busy) button.textContent = button.dataset.busy;
    }
  });

  // After a click the page's first words are what happened: keyboard and
  // screen-reader users start there.
  const said = document.querySelector("#notice, #live > .problem");
  if (said) { said.tabIndex = -1; said.focus(); }

  // A refused action answers at its form's address (…/approve): show the
  // run's own, so that a reload or a live update reads the run, not the form.
  const action = /\/(approve|reject|happened|rollback)$/;
  if (action.test(location.pathname)) history.replaceState(null, "", location.pathname.replace(action, ""));

  const events = body.dataset.events;
  if (!events || !window.EventSource) return;
  const conn = document.getElementById("conn");
  let running = false;
  let again = false;

  // A live update must not put a decision under the person's cursor: a
  // button of a form that acts (approve, reject, roll back, it happened)
  // that is new, or is not where it was, is held (disabled) for holdMs after
  // the update, as browsers hold their permission prompts, so that a click
  // meant for what was there does not land on it. A button is known by its
  // form's address and fields (the digest of the actions shown, the seq) and
  // its words; one held stays held until its time is up, through further
  // updates.
  const holdMs = 1000;
  const heldUntil = new Map();
  function buttonKey(b) {
    const fields = b.form ? [...new FormData(b.form)].filter(([k]) => k !== "csrf" && k !== "result").map(([k, v]) => k + "=" + v) : [];
    return (b.form ? b.form.action : "") + "|" + fields.join("&") + "|" + b.textContent;
  }
  function places(root) {
    const m = new Map();
    for (const b of root.querySelectorAll("form button")) {
      const r = b.getBoundingClientRect();
      m.set(buttonKey(b), r.x + "," + r.y + "," + r.width + "," + r.height);
    }
    return m;
  }
  function hold(before, root) {
    const now = Date.now();
    for (const b of root.querySelectorAll("form button")) {
      if (b.disabled && !b.dataset.held) continue; // the server disabled it
      const k = buttonKey(b);
      const r = b.getBoundingClientRect();
      if (before.get(k) !== r.x + "," + r.y + "," + r.width + "," + r.height) heldUntil.set(k, Math.max(heldUntil.get(k) || 0, now + holdMs));
      if ((heldUntil.get(k) || 0) > now) {
        b.disabled = true;
        b.dataset.held = "1";
        setTimeout(() => {
          if (b.isConnected && (heldUntil.get(k) || 0) <= Date.now()) { b.disabled = false; delete b.dataset.held; }
        }, heldUntil.get(k) - now);
      }
    }
  }

  async function refresh() {
    if (running) { again = true; return; }
    running = true;
    try {
      const res = await fetch(location.href, { credentials: "same-origin", headers: { Accept: "text/html" } });
      if (!res.ok) return;
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      const next = doc.getElementById("live");
      const cur = document.getElementById("live");
      // A form being submitted keeps its page until the server answers.
      if (next && cur && !document.querySelector("form[data-submitting]")) {
        // Keep the keyboard where it was when the same element is still there.
        const focused = document.activeElement && document.activeElement.id;
        const before = places(cur);
        const adopted = document.adoptNode(next);
        cur.replaceWith(adopted);
        hold(before, adopted); // before the browser takes another event
        const again = focused && document.getElementById(focused);
        if (again) again.focus();
        body.dataset.version = doc.body.dataset.version || "";
      }
    } catch (e) {
      // The next change event tries again.
    } finally {
      running = false;
      if (again) { again = false; refresh(); }
    }
  }

  const source = new EventSource(events + "since=" + encodeURIComponent(body.dataset.version || ""));
  source.addEventListener("open", () => { if (conn) { conn.textContent = "live"; conn.className = "conn live"; } });
  source.addEventListener("error", () => { if (conn) { conn.textContent = "reconnecting…"; conn.className = "conn down"; } });
  source.addEventListener("change", refresh);
  window.addEventListener("pagehide", () => source.close());
})();
