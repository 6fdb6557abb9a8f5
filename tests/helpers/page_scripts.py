"""Scripts a browser test runs in the page: a tab the person left, and the desktop notifications
the page shows there.

Playwright's page is always visible and a test browser grants no notification permission, so
the widget's attention tests (``tests/widget_browser``) and JupyterLab's end to end
(``tests/e2e``) play the browser's part with these; ``NOTES`` reads what either recorded.
"""

from __future__ import annotations

__all__ = ["HIDE", "NOTES", "RECORD_NOTIFICATIONS", "SHOW", "STAND_IN_NOTIFICATIONS"]

HIDE = """() => {
  Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "hidden"});
  Object.defineProperty(document, "hidden", {configurable: true, get: () => true});
  document.dispatchEvent(new Event("visibilitychange"));
}"""
"""The page as a browser shows it in a background tab."""

SHOW = """() => {
  delete document.visibilityState;
  delete document.hidden;
  document.dispatchEvent(new Event("visibilitychange"));
}"""
"""The page in front again (undoes ``HIDE``)."""

RECORD_NOTIFICATIONS = """(() => {
  if (typeof Notification !== "function") return;
  window.__notes = [];
  window.Notification = class extends Notification {
    constructor(title, options = {}) {
      super(title, options);
      this.closed = false;
      window.__notes.push(this);
    }
    close() {
      this.closed = true;
      super.close();
    }
  };
})();"""
"""An init script: the browser's own ``Notification``, recording each one the page creates (the
test grants the permission)."""

STAND_IN_NOTIFICATIONS = """(() => {
  window.__notes = [];
  window.__asked = 0;
  window.__focused = 0;
  window.focus = () => { window.__focused += 1; };
  class StandInNotification {
    static get permission() { return sessionStorage.getItem("permission") ?? "default"; }
    static async requestPermission() {
      window.__asked += 1;
      const answer = window.__answer ?? "granted";
      sessionStorage.setItem("permission", answer);
      return answer;
    }
    constructor(title, options = {}) {
      this.title = title;
      this.body = options.body ?? "";
      this.tag = options.tag ?? "";
      this.silent = options.silent ?? null;
      this.closed = false;
      this.onclick = null;
      window.__notes.push(this);
    }
    close() { this.closed = true; }
  }
  window.Notification = StandInNotification;
  // The test origin is plain http; a notebook served over https or from localhost is secure.
  Object.defineProperty(window, "isSecureContext", {get: () => true});
})();"""
"""An init script: a stand-in for ``Notification`` that records what the page shows. The answer
to the permission request is ``window.__answer`` (``"granted"`` unless a test sets it); the
permission lives in sessionStorage, so it outlasts a reload as the browser's own does.
``window.__asked`` counts the requests and ``window.__focused`` the calls of ``window.focus``."""

NOTES = """() => window.__notes.map(n => ({title: n.title, body: n.body, tag: n.tag,
  silent: n.silent, closed: n.closed}))"""
"""The notifications the page created, oldest first, as ``title``, ``body``, ``tag``, ``silent``
and ``closed``."""
