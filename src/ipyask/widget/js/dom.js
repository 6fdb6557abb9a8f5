// @ts-check
/** DOM helpers: elements with text-only children, the cards' icons, node tests. */

/**
 * Create an element; string children become text nodes (never HTML).
 * @param {string} tag
 * @param {Record<string, string | number | boolean | null | undefined>} [attrs]
 * @param {(Node | string | null | undefined | false)[]} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = String(value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** @type {Map<string, SVGSVGElement>} one prototype per icon; cloning is much cheaper */
const ICONS = new Map();

/** @param {string} path */
export function icon(path) {
  let proto = ICONS.get(path);
  if (!proto) {
    const ns = "http://www.w3.org/2000/svg";
    proto = document.createElementNS(ns, "svg");
    proto.setAttribute("viewBox", "0 0 16 16");
    proto.setAttribute("aria-hidden", "true");
    proto.setAttribute("focusable", "false");
    proto.setAttribute("class", "ipyask-svg");
    const line = document.createElementNS(ns, "path");
    line.setAttribute("d", path);
    proto.append(line);
    ICONS.set(path, proto);
  }
  return /** @type {SVGSVGElement} */ (proto.cloneNode(true));
}

export const ICON_CHEVRON = "M4 6l4 4 4-4";
export const ICON_CLOSE = "M4 4l8 8M12 4l-8 8";
export const ICON_PENCIL = "M3 13l1-3 6.5-6.5 2 2L6 12z";
export const ICON_CHECK = "M3.5 8.5l3 3 6-7";
const CIRCLE = "M8 2.5a5.5 5.5 0 1 0 0 11a5.5 5.5 0 1 0 0-11z";

/** One icon per card state, so the states differ in shape as well as colour. */
export const STATE_ICONS = {
  pending: `${CIRCLE}M8 5v3.2l2 1.3`,
  continued: "M3 4l4.5 4L3 12M8.5 4l4.5 4-4.5 4",
  answered: ICON_CHECK,
  rejected: `${CIRCLE}M6 6l4 4M10 6l-4 4`,
  declined: `${CIRCLE}M6 6l4 4M10 6l-4 4`,
  cancelled: `${CIRCLE}M4.2 4.2l7.6 7.6`,
  expired: "M4 2.5h8M4 13.5h8M5 2.5c0 3 6 3.5 6 5.5s-6 2.5-6 5.5M11 2.5c0 3-6 3.5-6 5.5s6 2.5 6 5.5",
};

/**
 * @template {Node} T
 * @param {T | null | undefined | false} node
 * @returns {node is T}
 */
export function isNode(node) {
  return node instanceof Node;
}

/** @param {EventTarget | null} target */
export function isEditable(target) {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || /^(?:INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
  );
}
