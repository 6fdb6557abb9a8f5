// @ts-check
/**
 * The inbox page served by Jupyter Server (/ipyask/inbox; docs/inbox-page.md): the widget's own
 * view, mounted on a model that stands in for the kernel's comm. The server runs the store's
 * inbox panel; its synced state and messages arrive as server-sent events (`state` on connecting,
 * then `update` and `custom`), and what the view sends goes back as POSTs carrying Jupyter's
 * XSRF token. Built on its own (scripts/build-widget) with `./widget.js` left as an import: the
 * page loads the very bundle the notebook widget ships.
 */

import widget from "./widget.js";

/** @import { Model } from "./types.js" */

const TEXTS = {
  en: {
    reconnecting: "Connection to the Jupyter server lost; reconnecting…",
    unsent: "Your answer did not reach the Jupyter server; nothing was recorded. Try again.",
    signedOut: "The Jupyter server no longer accepts this page's requests (signed out?). Reload the page.",
  },
  zh: {
    reconnecting: "与 Jupyter 服务器的连接已断开，正在重新连接…",
    unsent: "你的回答没有送达 Jupyter 服务器，未被记录。请重试。",
    signedOut: "Jupyter 服务器不再接受此页面的请求（已退出登录？）。请重新加载页面。",
  },
};

/** The protocol version of the error messages this page makes for its view (the widget's). */
const PROTOCOL_VERSION = 2;

/** @typedef {(...args: any[]) => void} Listener */

/**
 * The widget's model on this page: the state the server streams, the messages it relays.
 * @implements {Model}
 */
export class PageModel {
  /**
   * @param {string} messagesUrl
   * @param {string} xsrf
   * @param {() => "en" | "zh"} lang
   */
  constructor(messagesUrl, xsrf, lang) {
    this.messagesUrl = messagesUrl;
    this.xsrf = xsrf;
    this.lang = lang;
    /** @type {Record<string, unknown>} */
    this.state = {};
    /** @type {Map<string, Set<Listener>>} */
    this.listeners = new Map();
    /** Messages go out one after another, in the order the view sent them. */
    this.sending = Promise.resolve();
  }

  /** @param {string} name */
  get(name) {
    return this.state[name];
  }

  /** The view never writes the state (the server's panel owns it). */
  set() {}

  save_changes() {}

  /**
   * @param {string} event
   * @param {Listener} callback
   */
  on(event, callback) {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(callback);
  }

  /**
   * @param {string} event
   * @param {Listener} [callback]
   */
  off(event, callback) {
    if (callback) this.listeners.get(event)?.delete(callback);
    else this.listeners.delete(event);
  }

  /**
   * @param {string} event
   * @param {unknown[]} args
   */
  emit(event, ...args) {
    for (const callback of Array.from(this.listeners.get(event) ?? [])) callback(...args);
  }

  /**
   * Take state entries from the server: all of them (`replace`, on connecting) or those changed.
   * @param {Record<string, unknown>} entries
   * @param {boolean} replace
   */
  update(entries, replace) {
    const changed = Object.keys(entries).filter((name) => this.state[name] !== entries[name]);
    this.state = replace ? { ...entries } : { ...this.state, ...entries };
    for (const name of changed) this.emit(`change:${name}`);
  }

  /** @param {object} content a message of the view, for the server's panel */
  send(content) {
    this.sending = this.sending.then(() => this.post(content));
  }

  /** @param {object} content */
  async post(content) {
    /** @type {Response | null} */
    let response = null;
    try {
      response = await fetch(this.messagesUrl, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-XSRFToken": this.xsrf },
        body: JSON.stringify(content),
      });
    } catch {
      response = null;
    }
    if (response && response.ok) return;
    // The card re-arms its controls and says why: the answer was not recorded.
    const texts = TEXTS[this.lang()];
    const signedOut = response !== null && (response.status === 401 || response.status === 403);
    const fields = /** @type {Record<string, unknown>} */ (content);
    this.emit("msg:custom", {
      kind: "error",
      protocolVersion: PROTOCOL_VERSION,
      code: signedOut ? "PAGE_SIGNED_OUT" : "PAGE_UNSENT",
      message: signedOut ? texts.signedOut : texts.unsent,
      key: typeof fields.key === "string" ? fields.key : undefined,
      viewId: typeof fields.viewId === "string" ? fields.viewId : undefined,
    });
  }
}

/**
 * @param {string} raw
 * @returns {unknown}
 */
function parse(raw) {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

/** @param {unknown} value */
const isRecord = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/** The page's language, as the view picks its own. */
function pageLang() {
  const tag = document.documentElement.lang || navigator.language || "en";
  return /^zh(?:$|[-_])/i.test(tag) ? "zh" : "en";
}

function mount() {
  const root = /** @type {HTMLElement | null} */ (document.querySelector(".ipyask-page"));
  const host = /** @type {HTMLElement | null} */ (document.querySelector(".ipyask-page__inbox"));
  const status = document.querySelector(".ipyask-page__status");
  if (!root || !host || !status) return;
  const { events = "", messages = "", xsrf = "" } = root.dataset;
  const model = new PageModel(messages, xsrf, pageLang);
  let mounted = false;
  const source = new EventSource(events, { withCredentials: true });
  source.addEventListener("state", (event) => {
    const state = parse(/** @type {MessageEvent} */ (event).data);
    if (!isRecord(state)) return;
    model.update(/** @type {Record<string, unknown>} */ (state), true);
    status.textContent = "";
    root.classList.remove("ipyask-page--offline");
    root.classList.add("ipyask-page--ready");
    if (!mounted) {
      mounted = true;
      widget.initialize({ model });
      widget.render({ model, el: host });
    }
  });
  source.addEventListener("update", (event) => {
    const entries = parse(/** @type {MessageEvent} */ (event).data);
    if (isRecord(entries)) model.update(/** @type {Record<string, unknown>} */ (entries), false);
  });
  source.addEventListener("custom", (event) => {
    const content = parse(/** @type {MessageEvent} */ (event).data);
    if (content !== null) model.emit("msg:custom", content);
  });
  source.addEventListener("error", () => {
    // EventSource connects again by itself (the server sends the whole state when it does),
    // unless the server refused the stream: then only a reload (a new sign-in) helps.
    const texts = TEXTS[pageLang()];
    status.textContent = source.readyState === EventSource.CLOSED ? texts.signedOut : texts.reconnecting;
    root.classList.add("ipyask-page--offline");
  });
}

mount();
