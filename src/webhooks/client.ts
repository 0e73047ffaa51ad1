import { randomBytes, randomUUID } from 'node:crypto';

/** A registered external service that may send webhook events. */
export interface WebhookClient {
  readonly id: string;
  /** One of the supported services (`webhooks.supported_user_agents`), e.g. `service-eventhandler`. */
  readonly user_agent: string;
  /** 32 random bytes, base64url. Generated on creation, never chosen, changed or regenerated. */
  readonly api_key: string;
  /** ISO 8601 UTC time of creation. */
  readonly created_at: string;
}

/** What the settings list shows: the key is masked until revealed one client at a time. */
export type MaskedWebhookClient = Omit<WebhookClient, 'api_key'> & { readonly api_key: typeof MASKED_KEY };

export const MASKED_KEY = '********';

const API_KEY_BYTES = 32;

export function generateApiKey(): string {
  return randomBytes(API_KEY_BYTES).toString('base64url');
}

export function generateClientId(): string {
  return randomUUID();
}

export function maskClient(client: WebhookClient): MaskedWebhookClient {
  return { ...client, api_key: MASKED_KEY };
}

/**
 * Whether a request's User-Agent header "begins with" the client's registered User-Agent.
 * Decision: the header must be exactly the registered value or the registered value followed
 * by `/` (the usual `<product>/<version>` form, e.g. `service-eventhandler/1.2.3`). A plain
 * prefix match is not enough: `service-eventhandler-evil` does not match `service-eventhandler`.
 * Comparison is case-sensitive, as product tokens are sent verbatim by the services.
 */
export function userAgentMatches(header: string, registered: string): boolean {
  return header === registered || header.startsWith(`${registered}/`);
}

/** The product part of a User-Agent (before the first `/`), which selects the processing. */
export function userAgentProduct(userAgent: string): string {
  const slash = userAgent.indexOf('/');
  return slash === -1 ? userAgent : userAgent.slice(0, slash);
}
