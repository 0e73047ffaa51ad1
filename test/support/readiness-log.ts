// /readyz shows states only; what each readiness probe checked, and why it failed, is in the service's log, once
// per change of the probe's state (src/metrics/readiness.ts). Tests that assert the reason read it there.
import { waitFor, type RunningService } from './service.js';

/** The detail the log gave for each dependency's last change of state, once every one of `names` has one. */
export async function loggedReadiness(service: RunningService, names: readonly string[]): Promise<Record<string, string>> {
  const details: Record<string, string> = {};
  await waitFor(async () => {
    for (const line of service.output().split('\n').filter((l) => l.includes('"msg":"readiness: dependency'))) {
      const { dependency, detail } = JSON.parse(line) as { dependency: string; detail: string };
      details[dependency] = detail;
    }
    return names.every((name) => name in details);
  }, 5_000);
  return details;
}
