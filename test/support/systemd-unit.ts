// Reads a systemd unit file: the deployment-file checks and the package's install test, which starts the
// service exactly as the installed unit says.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A systemd unit as section -> key -> values (keys may repeat). */
export function parseUnit(text: string): Record<string, Record<string, string[]>> {
  const unit: Record<string, Record<string, string[]>> = {};
  let section: Record<string, string[]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = unit[header[1]!] = {};
      continue;
    }
    const eq = line.indexOf('=');
    assert.ok(section && eq > 0, `not a key=value line inside a section: ${line}`);
    (section[line.slice(0, eq)] ??= []).push(line.slice(eq + 1));
  }
  return unit;
}

/** The variables a unit's `Environment=` lines set (`NAME=value`; the value may hold `=` itself). */
export function unitEnvironment(service: Record<string, string[]>): Record<string, string> {
  return Object.fromEntries((service['Environment'] ?? []).map((pair) => {
    const eq = pair.indexOf('=');
    return [pair.slice(0, eq), pair.slice(eq + 1)];
  }));
}

/** The `Environment=` of the unit the package ships (config/edu-fileproxy.service): a service run the way the package runs it. */
export function shippedUnitEnvironment(): Record<string, string> {
  const unit = parseUnit(readFileSync(fileURLToPath(new URL('../../../config/edu-fileproxy.service', import.meta.url)), 'utf8'));
  return unitEnvironment(unit['Service'] ?? {});
}
