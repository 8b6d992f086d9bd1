import fc from 'fast-check';

// JSON bodies as the fuzz builds them: a tree that can also hold what JSON.stringify cannot write or what would
// make a counterexample unreadable: references to seeded records (resolved when the request is sent), 100 KB
// strings, 5,000-level nestings, raw number literals (1e999), duplicate keys and "__proto__" as an own key.
// Every node prints itself shortly (fast-check's toStringMethod), so a failure shows a readable plan.

export type JKey = string | Huge;
export type JTree = null | boolean | number | string | JTree[] | JObj | Ref | Huge | Deep | RawJson | Repeat;

const short = (s: string, max = 40) => (s.length > max ? `${JSON.stringify(s.slice(0, max))}…(${s.length} chars)` : JSON.stringify(s));

/** An object as an ordered list of entries (keys may repeat, may be "__proto__", may be huge). */
export class JObj {
  constructor(readonly entries: readonly (readonly [JKey, JTree])[]) {}
  [fc.toStringMethod](): string {
    return show(this);
  }
}

/** The id of a live record of a pool (`n` modulo the pool's size), resolved when the request is sent. */
export class Ref {
  constructor(
    readonly pool: string,
    readonly n: number,
    /** Text added around the id (a NUL byte after a real id ...). */
    readonly prefix = '',
    readonly suffix = '',
  ) {}
  [fc.toStringMethod](): string {
    return `ref(${this.pool}#${this.n}${this.prefix ? ` prefix ${short(this.prefix)}` : ''}${this.suffix ? ` suffix ${short(this.suffix)}` : ''})`;
  }
}

/** A string of `length` UTF-16 units made of `unit` repeated. */
export class Huge {
  constructor(
    readonly length: number,
    readonly unit: string,
  ) {}
  text(): string {
    return this.unit.repeat(Math.ceil(this.length / this.unit.length)).slice(0, this.length);
  }
  [fc.toStringMethod](): string {
    return `huge(${this.length} x ${JSON.stringify(this.unit)})`;
  }
}

/** `depth` nested arrays ([[[...]]]) or objects ({"a":{"a":...}}) around a leaf 1. */
export class Deep {
  constructor(
    readonly depth: number,
    readonly shape: 'array' | 'object',
  ) {}
  text(): string {
    return this.shape === 'array' ? `${'['.repeat(this.depth)}1${']'.repeat(this.depth)}` : `${'{"a":'.repeat(this.depth)}1${'}'.repeat(this.depth)}`;
  }
  [fc.toStringMethod](): string {
    return `deep(${this.depth} ${this.shape}s)`;
  }
}

/** An array of `count` copies of `element`. */
export class Repeat {
  constructor(
    readonly count: number,
    readonly element: JTree,
  ) {}
  [fc.toStringMethod](): string {
    return `repeat(${this.count} x ${show(this.element, 80)})`;
  }
}

/** A JSON literal written as is (1e999, 123456789012345678901234567890, -0). */
export class RawJson {
  constructor(readonly text: string) {}
  [fc.toStringMethod](): string {
    return `raw(${this.text})`;
  }
}

export type RefResolver = (ref: Ref) => string;

/** The JSON text of a tree; Ref nodes are resolved to ids. */
export function serialize(tree: JTree, resolve: RefResolver): string {
  const parts: string[] = [];
  const key = (k: JKey) => JSON.stringify(k instanceof Huge ? k.text() : k);
  const walk = (node: JTree): void => {
    if (node instanceof Ref) parts.push(JSON.stringify(node.prefix + resolve(node) + node.suffix));
    else if (node instanceof Huge) parts.push(JSON.stringify(node.text()));
    else if (node instanceof Deep) parts.push(node.text());
    else if (node instanceof RawJson) parts.push(node.text);
    else if (node instanceof Repeat) {
      parts.push('[');
      for (let i = 0; i < node.count; i++) {
        if (i > 0) parts.push(',');
        walk(node.element);
      }
      parts.push(']');
    }
    else if (node instanceof JObj) {
      parts.push('{');
      node.entries.forEach(([k, v], i) => {
        if (i > 0) parts.push(',');
        parts.push(key(k), ':');
        walk(v);
      });
      parts.push('}');
    } else if (Array.isArray(node)) {
      parts.push('[');
      node.forEach((v, i) => {
        if (i > 0) parts.push(',');
        walk(v);
      });
      parts.push(']');
    } else if (typeof node === 'number' && !Number.isFinite(node)) parts.push(String(node));
    else parts.push(JSON.stringify(node));
  };
  walk(tree);
  return parts.join('');
}

/** A short, readable rendering of a tree (for counterexamples and failure messages). */
export function show(tree: JTree, max = 400): string {
  const out = (node: JTree): string => {
    if (node instanceof Ref || node instanceof Huge || node instanceof Deep || node instanceof RawJson || node instanceof Repeat) return node[fc.toStringMethod]();
    if (node instanceof JObj) return `{${node.entries.map(([k, v]) => `${k instanceof Huge ? k[fc.toStringMethod]() : short(k)}: ${out(v)}`).join(', ')}}`;
    if (Array.isArray(node)) return `[${node.map(out).join(', ')}]`;
    if (typeof node === 'string') return short(node, 60);
    if (Object.is(node, -0)) return '-0';
    return String(node);
  };
  const text = out(tree);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

// ---- positions in a tree ----

/** A step into an object (entry index) or an array (element index). */
export type Step = { entry: number } | { index: number };
export type TreePath = readonly Step[];

export function getAt(tree: JTree, path: TreePath): JTree {
  let node = tree;
  for (const step of path) {
    if ('entry' in step) node = (node as JObj).entries[step.entry][1];
    else node = (node as JTree[])[step.index];
  }
  return node;
}

/** A copy of the tree with the value at `path` replaced (copy on write: the input is never changed). */
export function setAt(tree: JTree, path: TreePath, value: JTree): JTree {
  if (path.length === 0) return value;
  const [step, ...rest] = path;
  if ('entry' in step) {
    const obj = tree as JObj;
    return new JObj(obj.entries.map(([k, v], i) => (i === step.entry ? [k, setAt(v, rest, value)] : [k, v])));
  }
  const arr = tree as JTree[];
  return arr.map((v, i) => (i === step.index ? setAt(v, rest, value) : v));
}

/** Every value position (the root included), depth first. */
export function positions(tree: JTree): TreePath[] {
  const out: TreePath[] = [];
  const walk = (node: JTree, path: TreePath) => {
    out.push(path);
    if (node instanceof JObj) node.entries.forEach(([, v], i) => walk(v, [...path, { entry: i }]));
    else if (Array.isArray(node)) node.forEach((v, i) => walk(v, [...path, { index: i }]));
  };
  walk(tree, []);
  return out;
}

/** Positions holding an object. */
export function objectPositions(tree: JTree): TreePath[] {
  return positions(tree).filter((p) => getAt(tree, p) instanceof JObj);
}

/** Positions holding an object entry (so its key can be changed): the object's path and the entry index. */
export function keyPositions(tree: JTree): { object: TreePath; entry: number }[] {
  return objectPositions(tree).flatMap((object) => (getAt(tree, object) as JObj).entries.map((_, entry) => ({ object, entry })));
}

export function addEntry(tree: JTree, object: TreePath, key: JKey, value: JTree): JTree {
  const obj = getAt(tree, object) as JObj;
  return setAt(tree, object, new JObj([...obj.entries, [key, value]]));
}

export function renameKey(tree: JTree, object: TreePath, entry: number, rename: (key: string) => JKey): JTree {
  const obj = getAt(tree, object) as JObj;
  return setAt(
    tree,
    object,
    new JObj(obj.entries.map(([k, v], i) => (i === entry ? [rename(k instanceof Huge ? k.text() : k), v] : [k, v]))),
  );
}

/** Picks one of `items` by a generated natural number (deterministic, shrinks towards the first). */
export function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length];
}
