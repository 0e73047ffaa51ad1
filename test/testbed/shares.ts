// The file shares the testbed's DC exports; `verwaltung` demands SMB encryption.
import path from 'node:path';
import { layout } from './layout.js';

export interface ShareSpec {
  name: string;
  encrypt: boolean;
}

export const testbedShares: readonly ShareSpec[] = [
  { name: 'schule', encrypt: false },
  { name: 'verwaltung', encrypt: true },
];

export function sharePath(name: string): string {
  return path.join(layout.sharesDir, name);
}
