import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDuration, parseSize } from '../../../src/config/units.js';

const DURATIONS_MS: [unknown, number][] = [
  ['500ms', 500],
  ['30s', 30_000],
  ['15m', 900_000],
  ['24h', 86_400_000],
  ['2d', 172_800_000],
  ['1.5s', 1_500],
  [90, 90_000], // plain numbers are seconds
  [0.25, 250],
];

const SIZES_BYTES: [unknown, number][] = [
  ['1MiB', 1_048_576],
  ['512KiB', 524_288],
  ['1GiB', 1_073_741_824],
  ['2MB', 2_000_000],
  ['100B', 100],
  ['1.5KiB', 1_536],
  [4096, 4096], // plain numbers are bytes
];

test('durations: units and plain seconds become milliseconds', () => {
  for (const [input, ms] of DURATIONS_MS) assert.equal(parseDuration(input), ms, JSON.stringify(input));
});

test('durations: anything else is not a duration', () => {
  for (const value of ['15 minutes', '15', 'm', '1h30m', '-5s', '', true, null, undefined, Number.NaN, [15]]) {
    assert.equal(parseDuration(value), undefined, `${JSON.stringify(value)} must not parse`);
  }
});

test('sizes: binary and decimal units and plain bytes', () => {
  for (const [input, bytes] of SIZES_BYTES) assert.equal(parseSize(input), bytes, JSON.stringify(input));
});

test('sizes: fractions of a byte and unknown units are not sizes', () => {
  for (const value of ['1.5B', '1 MegaByte', '1mib', 'MiB', 10.5, '', false]) {
    assert.equal(parseSize(value), undefined, `${JSON.stringify(value)} must not parse`);
  }
});
