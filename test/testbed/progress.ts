// Progress lines on stderr (stdout stays free for `status` output), each step with its duration.
const started = Date.now();

function stamp(): string {
  return `${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s`;
}

export function note(message: string): void {
  process.stderr.write(`[testbed ${stamp()}] ${message}\n`);
}

export async function step<T>(name: string, work: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  note(`${name} ...`);
  const result = await work();
  note(`${name} done (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
  return result;
}
