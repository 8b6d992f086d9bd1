import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';

/** One sample of the Prometheus text format: `name{label="value",...} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of an exposition text (comments skipped); throws on a line that is not a sample. */
export function parseSamples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = SAMPLE.exec(line);
      if (!match) throw new Error(`not a sample: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map(([, name, value]) => [name, value.replace(/\\(.)/g, '$1')]));
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

/** GET /metrics of the app (with the token when given): the text, its samples, and a finder. */
export async function scrape(t: TestApp, token?: string) {
  const res = await fetch(`${t.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples = parseSamples(text);
  /** The samples of `name` whose labels include `labels`. */
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter((sample) => sample.name === name && Object.entries(labels).every(([label, value]) => sample.labels[label] === value));
  /** The value of the one sample of `name` with exactly these labels, or undefined. */
  const value = (name: string, labels: Record<string, string> = {}) =>
    samples.find((sample) => sample.name === name && Object.keys(sample.labels).length === Object.keys(labels).length && Object.entries(labels).every(([label, v]) => sample.labels[label] === v))?.value;
  return { text, samples, find, value };
}
