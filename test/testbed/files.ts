// Small file helpers for the testbed's state files and logs.
import { access, readFile } from 'node:fs/promises';

export async function exists(file: string): Promise<boolean> {
  return access(file).then(() => true, () => false);
}

/** The parsed JSON state file, or undefined when it is missing or unreadable (e.g. cut short by a crash). */
export async function readStateFile<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export function lastLines(text: string, lines = 20): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

export async function fileTail(file: string, lines = 30): Promise<string> {
  try {
    return `--- last lines of ${file} ---\n${lastLines(await readFile(file, 'utf8'), lines)}`;
  } catch {
    return `(no log at ${file})`;
  }
}
