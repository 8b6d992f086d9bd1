// The page's elements (the HTML of src/pages/board.ts, by id), a helper that builds elements with text (never
// HTML), and the two status areas: the banner and the live badge.

/** The elements of the page the script uses, by id. */
interface Elements {
  'key-section': HTMLElement;
  'key-form': HTMLFormElement;
  'key-input': HTMLInputElement;
  'key-error': HTMLParagraphElement;
  'board-section': HTMLElement;
  'day-input': HTMLInputElement;
  'previous-day': HTMLButtonElement;
  today: HTMLButtonElement;
  'next-day': HTMLButtonElement;
  refresh: HTMLButtonElement;
  live: HTMLSpanElement;
  'forget-key': HTMLButtonElement;
  banner: HTMLDivElement;
  'banner-text': HTMLParagraphElement;
  'banner-close': HTMLButtonElement;
  summary: HTMLParagraphElement;
  board: HTMLTableElement;
  'move-dialog': HTMLDialogElement;
  'move-form': HTMLFormElement;
  'move-heading': HTMLHeadingElement;
  'move-user': HTMLSelectElement;
  'move-time': HTMLInputElement;
  'move-cancel': HTMLButtonElement;
}

/** An element of the page by its id (board.ts renders them all). */
export function $<Id extends keyof Elements>(id: Id): Elements[Id] {
  return document.getElementById(id) as Elements[Id];
}

/** An attribute's value: null, undefined and false leave the attribute out, true sets it empty. */
type AttributeValue = string | number | boolean | null | undefined;

/** A new element with these attributes (`text`: its textContent) and children (null ones skipped). */
export function el<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  attrs?: Record<string, AttributeValue> | null,
  children?: (Node | null)[],
): HTMLElementTagNameMap[Tag] {
  const node = document.createElement(tag);
  if (attrs)
    for (const [name, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (name === 'text') node.textContent = String(value);
      else node.setAttribute(name, value === true ? '' : String(value));
    }
  for (const child of children ?? []) if (child) node.appendChild(child);
  return node;
}

/** The element matching `selector` at or above an event's target, if the target is an element. */
export function closestOf(target: EventTarget | null, selector: string): HTMLElement | null {
  return target instanceof Element ? target.closest<HTMLElement>(selector) : null;
}

export function showBanner(text: string): void {
  $('banner-text').textContent = text;
  $('banner').hidden = false;
}

export function hideBanner(): void {
  $('banner').hidden = true;
  $('banner-text').textContent = '';
}

/** The live badge's states (its data-state, which the page's style colours). */
export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'unavailable';

export function setLive(state: LiveState, text: string): void {
  const node = $('live');
  node.dataset.state = state;
  node.textContent = text;
}
