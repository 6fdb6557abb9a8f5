// @ts-check
/**
 * Sanitizer for kernel-rendered Markdown: defence in depth, the kernel already sanitized it. The
 * only HTML the cards insert goes through `markdownBlock`.
 */

import { h } from "./dom.js";
import { gateImage } from "./images.js";

const KEEP = new Set(
  "P H1 H2 H3 H4 H5 H6 STRONG EM B I CODE PRE UL OL LI A BLOCKQUOTE HR BR TABLE THEAD TBODY TR TH TD DEL S IMG SPAN".split(" "),
);
const ATTRS = /** @type {Record<string, string[]>} */ ({
  A: ["href", "title"],
  IMG: ["src", "alt", "title"],
  OL: ["start"],
  TH: ["style"],
  TD: ["style"],
  CODE: ["class"],
});

/**
 * @param {string} url
 * @param {boolean} image
 */
function safeUrl(url, image) {
  const value = url.replace(/[\u0000-\u0020]/g, "");
  const scheme = /^([a-z][a-z0-9+.\-]*):/i.exec(value);
  if (!scheme) return true;
  if (/^(?:https?|mailto)$/i.test(scheme[1])) return true;
  return image && /^data:image\/(?:png|gif|jpeg|webp)[;,]/i.test(value);
}

const DROP = /^(?:SCRIPT|STYLE|IFRAME|FRAME|OBJECT|EMBED|TEMPLATE|SVG|MATH|NOSCRIPT)$/i;

/** @param {Element} node */
function scrubAttributes(node) {
  const allowed = ATTRS[node.tagName] ?? [];
  for (const attr of Array.from(node.attributes)) {
    const name = attr.name.toLowerCase();
    let ok = allowed.includes(name);
    if (ok && (name === "href" || name === "src")) ok = safeUrl(attr.value, name === "src");
    if (ok && name === "style") ok = /^text-align:\s*(?:left|right|center)$/i.test(attr.value);
    if (ok && name === "class") ok = /^language-[\w-]+$/.test(attr.value);
    if (!ok) node.removeAttribute(attr.name);
  }
}

/**
 * Keep allow-listed elements and attributes only: active elements are dropped with their
 * content, other unknown elements are unwrapped (their text stays). One flat pass.
 * @param {DocumentFragment} root
 */
export function scrub(root) {
  for (const node of Array.from(root.querySelectorAll("*"))) {
    if (!KEEP.has(node.tagName)) {
      if (DROP.test(node.tagName)) node.remove();
      else node.replaceWith(...Array.from(node.childNodes));
      continue;
    }
    if (node.attributes.length > 0) scrubAttributes(node);
    if (node.tagName === "A") {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    } else if (node.tagName === "IMG") {
      if (!node.hasAttribute("src")) node.remove();
      else {
        node.setAttribute("referrerpolicy", "no-referrer");
        if (!node.hasAttribute("alt")) node.setAttribute("alt", "");
        gateImage(node);
      }
    }
  }
}

/**
 * Parse HTML inertly (a template never runs scripts or loads resources), then scrub it.
 * @param {string} html
 */
export function markdownBlock(html) {
  const template = document.createElement("template");
  template.innerHTML = html;
  scrub(template.content);
  const block = h("div", { class: "ipyask-markdown" });
  block.append(template.content);
  return block;
}
