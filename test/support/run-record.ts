// A reporter for Node's test runner that records what run-tests.ts prints after the last tier: a line per failed
// test (`failed: ` file, test name and the first line of the error), so that the last lines of a long CI log say
// which test failed instead of only `# fail 1`; and a line per top-level test or suite with its file and duration
// (DURATION_TAG, ms and file, tab-separated), added up per file for the slowest files. One reporter for both: Node
// warns of a listener leak from a third reporter on one run.
import { relative } from 'node:path';

export const DURATION_TAG = 'duration';

interface TestEvent {
  type: string;
  data: { name: string; file?: string; line?: number; nesting?: number; details?: { error?: unknown; type?: string; duration_ms?: number } };
}

function firstLine(error: unknown): string {
  const cause = (error as { cause?: unknown } | undefined)?.cause ?? error;
  const text = cause instanceof Error ? cause.message : String(cause);
  return text.split('\n').find((l) => l.trim() !== '')?.trim().slice(0, 300) ?? '';
}

export default async function* runRecord(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (nesting === 0 && file !== undefined && details?.duration_ms !== undefined) yield `${DURATION_TAG}\t${details.duration_ms}\t${file}\n`;
    // A suite fails when one of its tests does; the test's own line says more.
    if (event.type !== 'test:fail' || details?.type === 'suite') continue;
    const where = file === undefined ? '?' : `${relative(process.cwd(), file)}:${event.data.line ?? '?'}`;
    yield `failed: ${where} ${event.data.name}: ${firstLine(details?.error)}\n`;
  }
}
