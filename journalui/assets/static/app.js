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
        cur.replaceWith(document.adoptNode(next));
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
