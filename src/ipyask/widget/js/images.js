// @ts-check
/**
 * Images from other hosts load only when allowed. Agent text can name any image URL, and loading
 * it tells that host the card was shown (a tracking pixel). Same-origin and `data:` images show
 * at once; the sanitiser turns every other image into a gate (`gateImage`), which `ImageGates`
 * turns into the image when the panel's `image_hosts` lists its host (`"*"`: every host) or the
 * person chose "Show images from <host>" in this view, and into that button otherwise.
 */

import { h } from "./dom.js";
import { fill } from "./strings.js";

/**
 * The host a URL would contact, or `null` when it may load at once (same origin, `data:`).
 * @param {string} url
 */
export function remoteHost(url) {
  let parsed;
  try {
    parsed = new URL(url, document.baseURI);
  } catch {
    return "";
  }
  if (parsed.protocol === "data:" || parsed.origin === location.origin) return null;
  return parsed.host;
}

/**
 * An `<img>` for a same-origin or `data:` URL; for any other, a gate that holds the URL without
 * loading it. An icon's gate shows nothing until its host is allowed.
 * @param {string} src
 * @param {{alt?: string, class?: string, width?: number, height?: number, icon?: boolean}} [options]
 * @returns {HTMLElement}
 */
export function imageOrGate(src, options = {}) {
  const attrs = { alt: options.alt ?? "", class: options.class, width: options.width, height: options.height };
  const host = remoteHost(src);
  if (host === null) return h("img", { ...attrs, src, referrerpolicy: "no-referrer" });
  return h("span", {
    class: "ipyask-image-gate",
    "data-src": src,
    "data-host": host,
    "data-alt": attrs.alt,
    "data-class": options.class ?? "",
    "data-size": options.width ? `${options.width}x${options.height ?? options.width}` : "",
    "data-icon": options.icon ? "" : undefined,
  });
}

/**
 * Replace a sanitised `<img>` with a gate when its URL is remote.
 * @param {Element} img
 */
export function gateImage(img) {
  const src = img.getAttribute("src") ?? "";
  if (remoteHost(src) === null) return;
  img.replaceWith(imageOrGate(src, { alt: img.getAttribute("alt") ?? "" }));
}

/**
 * @import { Model } from "./types.js"
 */

export class ImageGates {
  /**
   * @param {HTMLElement} root
   * @param {Model} model
   * @param {() => Record<string, string>} strings
   */
  constructor(root, model, strings) {
    this.root = root;
    this.model = model;
    this.strings = strings;
    /** @type {Set<string>} hosts the person allowed in this view */
    this.allowed = new Set();
    this.observer = new MutationObserver(() => this.update());
    this.observer.observe(root, { childList: true, subtree: true });
    this.onHosts = () => this.update();
    model.on("change:image_hosts", this.onHosts);
    this.onClick = (/** @type {Event} */ event) => {
      const target = /** @type {Element | null} */ (event.target);
      const button = target?.closest?.("[data-show-images]");
      if (!button) return;
      this.allowed.add(button.getAttribute("data-show-images") ?? "");
      this.update();
    };
    root.addEventListener("click", this.onClick);
  }

  /** @param {string} host */
  isAllowed(host) {
    const hosts = /** @type {unknown} */ (this.model.get("image_hosts"));
    const listed = Array.isArray(hosts) ? hosts : [];
    return this.allowed.has(host) || listed.includes("*") || listed.includes(host);
  }

  /** Load the allowed gates' images; give the others their button (once). */
  update() {
    for (const gate of Array.from(this.root.querySelectorAll(".ipyask-image-gate"))) {
      const host = gate.getAttribute("data-host") ?? "";
      if (host && this.isAllowed(host)) {
        const [width, height] = (gate.getAttribute("data-size") || "").split("x");
        gate.replaceWith(
          h("img", {
            src: gate.getAttribute("data-src") ?? "",
            alt: gate.getAttribute("data-alt") ?? "",
            class: gate.getAttribute("data-class") || undefined,
            width: width || undefined,
            height: height || undefined,
            referrerpolicy: "no-referrer",
          }),
        );
      } else if (!gate.hasAttribute("data-icon") && !gate.firstChild) {
        const alt = gate.getAttribute("data-alt");
        gate.append(
          alt ? h("span", { class: "ipyask-image-gate__alt" }, alt) : "",
          h(
            "button",
            { type: "button", class: "ipyask-btn ipyask-btn--outline ipyask-image-gate__show", "data-show-images": host },
            fill(this.strings().showImages, { host: host || "?" }),
          ),
        );
      }
    }
  }

  destroy() {
    this.observer.disconnect();
    this.model.off("change:image_hosts", this.onHosts);
    this.root.removeEventListener("click", this.onClick);
  }
}
