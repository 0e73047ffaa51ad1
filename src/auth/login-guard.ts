// A login that would ask the directory or the file server, run under the login throttle (login-throttle.ts):
// admitted first, its outcome recorded afterwards. The throttle lives in the ldap-resolver actor; the other
// threads reach it over their channel (remoteLoginGuard), the resolver itself directly (localLoginGuard). Before
// counting, the resolver maps a principal name to its account (login-accounts.ts); the admission says which
// budget the attempt was counted under, and the outcome is recorded for exactly that one.
import type { Logger } from '../common/logger.js';
import { HttpError } from '../http/http-error.js';
import { ActorUnavailableError } from '../runtime/rpc.js';
import type { LoginAccounts } from './login-accounts.js';
import type { LoginAttempt, LoginOutcome, LoginRefusal, LoginThrottle } from './login-throttle.js';

/** The throttle's answer; an admitted attempt with the attempt as counted, which its outcome is settled for. */
export type GuardAdmission = { admitted: true; counted: LoginAttempt } | LoginRefusal;

export interface LoginGuard {
  admit(attempt: LoginAttempt): Promise<GuardAdmission>;
  /** For the attempt as counted. Fire and forget: a lost outcome leaves the attempt counted as a failure, never less. */
  settle(counted: LoginAttempt, outcome: LoginOutcome): void;
}

/** The ldap-resolver's methods for the throttle (actors/ldap-resolver/protocol.ts). */
export interface LoginGuardProtocol {
  admitLogin(attempt: LoginAttempt): Promise<GuardAdmission>;
  settleLogin(counted: LoginAttempt, outcome: LoginOutcome): Promise<void>;
}

/** A login refused by the throttle before anyone was asked. */
export class LoginThrottledError extends Error {
  constructor(readonly scope: 'account' | 'address', readonly retryAfterSeconds: number) {
    super(scope === 'account'
      ? `too many failed logins for this user; try again in ${retryAfterSeconds} s`
      : `too many failed logins from this address; try again in ${retryAfterSeconds} s`);
    this.name = 'LoginThrottledError';
  }
}

export function localLoginGuard(throttle: LoginThrottle, accounts: LoginAccounts): LoginGuard {
  return {
    admit: async (attempt) => {
      // A locked address is refused before its login name's account is looked up: it costs the directory nothing.
      const addressLocked = throttle.refuseAddress(attempt.address);
      if (addressLocked) return addressLocked;
      const counted = await accounts.counted(attempt);
      const admission = throttle.admit(counted);
      return admission.admitted ? { admitted: true, counted } : admission;
    },
    settle: (counted, outcome) => throttle.settle(counted, outcome),
  };
}

/**
 * Pauses between tries of a login while the ldap-resolver is down. A crashed actor is serving again within a
 * fraction of a second (a spare thread takes over), so a login waits that long instead of failing; fail-closed
 * still: when the throttle has not answered by then, admit fails with its ActorUnavailableError (a 503).
 */
const THROTTLE_RESTART_PAUSES_MS = [50, 100, 200, 400, 800];

/** The guard of another thread. */
export function remoteLoginGuard(resolver: LoginGuardProtocol, log: Logger): LoginGuard {
  return {
    admit: async (attempt) => {
      for (const pause of THROTTLE_RESTART_PAUSES_MS) {
        try {
          return await resolver.admitLogin(attempt);
        } catch (err) {
          if (!(err instanceof ActorUnavailableError)) throw err;
          await new Promise((resolve) => setTimeout(resolve, pause));
        }
      }
      return resolver.admitLogin(attempt);
    },
    settle: (counted, outcome) => {
      resolver.settleLogin(counted, outcome).catch((err: unknown) => log.warn({ err }, 'login outcome not recorded; the attempt stays counted as a failure'));
    },
  };
}

/**
 * Runs `login` when the throttle admits the attempt (else throws LoginThrottledError without calling it) and
 * records its outcome: success, a refusal (`isRefusal` tells which errors mean wrong credentials) or unknown.
 */
export async function guardedLogin<T>(guard: LoginGuard, attempt: LoginAttempt, login: () => Promise<T>, isRefusal: (err: unknown) => boolean): Promise<T> {
  const admission = await guard.admit(attempt);
  if (!admission.admitted) throw new LoginThrottledError(admission.scope, admission.retryAfterSeconds);
  try {
    const result = await login();
    guard.settle(admission.counted, 'succeeded');
    return result;
  } catch (err) {
    guard.settle(admission.counted, isRefusal(err) ? 'failed' : 'unknown');
    throw err;
  }
}

const THROTTLED_CODE = 'too_many_failed_logins';

/** A refused login as a result object (one that crosses threads, or an authentication result): a 429. */
export interface ThrottledAnswer {
  readonly ok: false;
  readonly status: 429;
  readonly error: typeof THROTTLED_CODE;
  readonly message: string;
  readonly retryAfterSeconds: number;
}

export function throttledAnswer(err: LoginThrottledError): ThrottledAnswer {
  return { ok: false, status: 429, error: THROTTLED_CODE, message: err.message, retryAfterSeconds: err.retryAfterSeconds };
}

/** The 429 answer with Retry-After. */
export function throttledHttpError(err: LoginThrottledError): HttpError {
  return new HttpError(429, THROTTLED_CODE, err.message, { 'retry-after': String(err.retryAfterSeconds) });
}

/** Why a new login gets a 503 while the ldap-resolver, which holds the throttle, does not answer. */
export const THROTTLE_UNAVAILABLE_MESSAGE = 'the login throttle (ldap-resolver) is restarting, so a new login cannot be checked; try again';
