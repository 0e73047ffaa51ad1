// A reporter for Node's test runner that writes one line per failed test: file, test name and the first line of
// the error. run-tests.ts prints those lines after the run, so that the last lines of a long CI log say which test
// failed instead of only `# fail 1`.
import { relative } from 'node:path';

interface FailEvent {
  type: string;
  data: { name: string; file?: string; line?: number; details?: { error?: unknown; type?: string } };
}

function firstLine(error: unknown): string {
  const cause = (error as { cause?: unknown } | undefined)?.cause ?? error;
  const text = cause instanceof Error ? cause.message : String(cause);
  return text.split('\n').find((l) => l.trim() !== '')?.trim().slice(0, 300) ?? '';
}

export default async function* failureSummary(source: AsyncIterable<FailEvent>): AsyncGenerator<string> {
  for await (const event of source) {
    // A suite fails when one of its tests does; the test's own line says more.
    if (event.type !== 'test:fail' || event.data.details?.type === 'suite') continue;
    const where = event.data.file === undefined ? '?' : `${relative(process.cwd(), event.data.file)}:${event.data.line ?? '?'}`;
    yield `failed: ${where} ${event.data.name}: ${firstLine(event.data.details?.error)}\n`;
  }
}
