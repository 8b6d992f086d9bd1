/** Nearest-rank quantile of an unsorted sample (q in 0..1). */
export function quantile(values: ArrayLike<number>, q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export function median(values: number[]): number {
  return quantile(values, 0.5);
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

export function rate(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a';
}

/** A plain text table: first row is the header. */
export function table(rows: string[][], alignRight: (column: number) => boolean = (c) => c > 0): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => r.map((cell, c) => (alignRight(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ');
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}
