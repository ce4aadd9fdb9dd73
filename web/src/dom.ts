// DOM helpers. Everything a relay, a signer or a service sends is shown
// as text (textContent), never parsed as markup.

/** The element with this id, or an error naming it (a broken page). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as T;
}

type Child = Node | string | null | undefined | false;

/** `<tag class=…>children</tag>`; strings become text nodes. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

/** Replaces the children of `parent`. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** A 64-hex key or id shortened for reading, the whole value kept in a title. */
export function short(hex: string, keep = 8): HTMLElement {
  const shown = hex.length > 2 * keep + 1 ? `${hex.slice(0, keep)}…${hex.slice(-keep)}` : hex;
  return el('code', { title: hex }, shown);
}

/**
 * Sets a status line: its text and its state (`error` is shown as an
 * error; none: a plain progress line). An empty text clears it.
 */
export function say(line: HTMLElement, text: string, state?: 'error' | 'loading' | 'done' | 'working'): void {
  line.textContent = text;
  if (state && text) line.dataset.state = state;
  else delete line.dataset.state;
}
