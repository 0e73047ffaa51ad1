// One line of `fileproxy doctor`: what was checked, whether it holds, and
// for a failure (or a warning: it works, but not as configured) the fix an operator should apply.

export interface CheckResult {
  name: string;
  status: 'ok' | 'warn' | 'fail' | 'skip';
  detail: string;
  fix?: string;
}

export const ok = (name: string, detail: string): CheckResult => ({ name, status: 'ok', detail });
export const fail = (name: string, detail: string, fix: string): CheckResult => ({ name, status: 'fail', detail, fix });
export const warn = (name: string, detail: string, fix: string): CheckResult => ({ name, status: 'warn', detail, fix });
export const skip = (name: string, detail: string): CheckResult => ({ name, status: 'skip', detail });

export function formatResult(r: CheckResult): string {
  const mark = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL', skip: 'skip' }[r.status];
  return `${mark} ${r.name}: ${r.detail}${r.fix ? `\n     fix: ${r.fix}` : ''}`;
}
