// Human-friendly durations and sizes as written in config.yml.

const DURATION_UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const SIZE_UNIT_BYTES: Record<string, number> = {
  B: 1,
  KB: 1000,
  MB: 1000 ** 2,
  GB: 1000 ** 3,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
};

/** `"15m"`, `"30s"`, `"500ms"`, `"24h"`, `"2d"` or a plain number of seconds, as milliseconds; undefined if not a duration. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.round(value * 1000) : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(value);
  if (match === null) return undefined;
  return Math.round(Number(match[1]) * DURATION_UNIT_MS[match[2]!]!);
}

/** `"1MiB"`, `"512KiB"`, `"2MB"`, `"100B"` or a plain number of bytes, as bytes; undefined if not a size. */
export function parseSize(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|KiB|MiB|GiB)?\s*$/.exec(value);
  if (match === null) return undefined;
  const bytes = Number(match[1]) * SIZE_UNIT_BYTES[match[2] ?? 'B']!;
  return Number.isInteger(bytes) ? bytes : undefined;
}
