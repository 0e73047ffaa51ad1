// A reporter for Node's test runner that records what run-tests.ts prints after the last tier: a line per failed
// test (`failed: ` file, test name and the first line of the error), so that the last lines of a long CI log say
// which test failed instead of only `# fail 1`; a suite's own failure (a hook's) is one line with its error and the
// number of tests it cancelled, not a line per cancelled test that hides the cause (stop 60's CI showed ten lines of
// "test did not finish before its parent" and cut the hook's error); and a line per test file with its duration (DURATION_TAG, ms and
// file, tab-separated), for the slowest files. The duration is the file's summary's: a test's or suite's own `file`
// is where it was declared, which for a suite declared by a support module (the abuse campaigns' abuseSuite) names
// that module, not the test file. One reporter for both: Node warns of a listener leak from a third reporter on one
// run.
import { relative } from 'node:path';

export const DURATION_TAG = 'duration';

interface TestEvent {
  type: string;
  data: { name: string; file?: string; line?: number; duration_ms?: number; details?: { error?: unknown; type?: string } };
}

/** Why node:test failed a test or suite (ERR_TEST_FAILURE's failureType): its own code, a hook, its subtests, its parent. */
function failureTypeOf(error: unknown): string | undefined {
  return (error as { failureType?: string } | undefined)?.failureType;
}

function firstLine(error: unknown): string {
  const cause = (error as { cause?: unknown } | undefined)?.cause ?? error;
  const text = cause instanceof Error ? cause.message : String(cause);
  return text.split('\n').find((l) => l.trim() !== '')?.trim().slice(0, 300) ?? '';
}

export default async function* runRecord(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  // Tests cancelled because their suite failed; node reports them before the suite itself.
  let cancelled = 0;
  for await (const event of source) {
    // One summary per test file, and one without a file for the whole run.
    if (event.type === 'test:summary' && event.data.file !== undefined) yield `${DURATION_TAG}\t${event.data.duration_ms}\t${event.data.file}\n`;
    if (event.type !== 'test:fail') continue;
    const { file, details } = event.data;
    const failureType = failureTypeOf(details?.error);
    if (failureType === 'cancelledByParent') {
      cancelled += 1;
      continue;
    }
    // A suite fails when one of its tests does; the test's own line says more.
    if (failureType === 'subtestsFailed') continue;
    const where = file === undefined ? '?' : `${relative(process.cwd(), file)}:${event.data.line ?? '?'}`;
    const withCancelled = cancelled === 0 ? '' : ` (${cancelled} test${cancelled === 1 ? '' : 's'} under it cancelled)`;
    cancelled = 0;
    yield `failed: ${where} ${event.data.name}${withCancelled}: ${firstLine(details?.error)}\n`;
  }
}
