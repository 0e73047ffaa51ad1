// @ts-check
// The service's admin APIs as the signed-in admin calls them. The credentials live only in
// an AdminApi object in memory (never in storage or cookies) and go out as HTTP Basic on each
// call; `credentials: 'omit'` keeps the browser from adding its own and from showing its
// login prompt when an answer is 401.

/**
 * @typedef {{ id: string, user_agent: string, api_key: string, created_at: string }} WebhookClient
 * @typedef {{ share: string, active: boolean, access_groups: string[] }} ShareVisibility
 */

/** An answer in the service's error shape `{status:'error', error, message}`, or no answer at all (status 0). */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/** Paths relative to the page (served at /admin/), so that a reverse proxy may mount the service under a prefix. */
const PATHS = {
  clients: '../edu-api/admin/webhook-clients',
  userAgents: '../edu-api/admin/webhook-user-agents',
  visibility: '../edu-api/admin/wiki-visibility',
};

export class AdminApi {
  /** @type {string} */
  #authorization;

  /**
   * @param {string} user
   * @param {string} password
   */
  constructor(user, password) {
    this.user = user;
    this.#authorization = `Basic ${base64Utf8(`${user}:${password}`)}`;
  }

  /** @returns {Promise<string[]>} the supported services (also proves the credentials are a global admin's) */
  async supportedUserAgents() {
    return (await this.#call('GET', PATHS.userAgents)).user_agents;
  }

  /**
   * @param {string} [userAgent] only the clients of this User-Agent
   * @returns {Promise<WebhookClient[]>} keys masked
   */
  async listClients(userAgent) {
    const query = userAgent ? `?user_agent=${encodeURIComponent(userAgent)}` : '';
    return (await this.#call('GET', `${PATHS.clients}${query}`)).clients;
  }

  /**
   * @param {string} userAgent
   * @returns {Promise<WebhookClient>} key masked
   */
  createClient(userAgent) {
    return this.#call('POST', PATHS.clients, { user_agent: userAgent });
  }

  /**
   * @param {string} id
   * @returns {Promise<string>} the key in clear
   */
  async revealKey(id) {
    return (await this.#call('GET', `${PATHS.clients}/${encodeURIComponent(id)}/key`)).api_key;
  }

  /**
   * @param {string[]} ids
   * @returns {Promise<{ deleted: string[], not_found: string[] }>}
   */
  deleteClients(ids) {
    return this.#call('DELETE', PATHS.clients, { ids });
  }

  /** @returns {Promise<ShareVisibility[]>} */
  async listVisibility() {
    return (await this.#call('GET', PATHS.visibility)).shares;
  }

  /**
   * @param {string} share
   * @param {{ active: boolean, access_groups: string[] }} settings
   * @returns {Promise<ShareVisibility>} what the service stored
   */
  setVisibility(share, settings) {
    return this.#call('PUT', `${PATHS.visibility}/${encodeURIComponent(share)}`, settings);
  }

  /**
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body] sent as JSON
   * @returns {Promise<any>} the JSON answer of a 2xx response
   */
  async #call(method, path, body) {
    /** @type {Record<string, string>} */
    const headers = { authorization: this.#authorization, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response;
    try {
      response = await fetch(new URL(path, document.baseURI), {
        method,
        headers,
        credentials: 'omit',
        cache: 'no-store',
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (err) {
      throw new ApiError(0, 'unreachable', `The service cannot be reached (${err instanceof Error ? err.message : String(err)}).`);
    }
    const data = await response.json().catch(() => undefined);
    if (response.ok && data !== undefined) return data;
    if (data && data.status === 'error' && typeof data.message === 'string') {
      throw new ApiError(response.status, String(data.error), data.message);
    }
    throw new ApiError(response.status, 'unexpected_answer',
      `The service answered ${response.status} ${response.statusText} without a JSON ${response.ok ? 'body' : 'error message'}.`);
  }
}

/**
 * Base64 of the UTF-8 bytes (btoa alone takes only Latin-1).
 * @param {string} text
 */
function base64Utf8(text) {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
