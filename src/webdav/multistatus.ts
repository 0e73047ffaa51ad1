// 207 Multi-Status bodies (RFC 4918 §13): PROPFIND and PROPPATCH results,
// per-member failures of DELETE, COPY and MOVE, and the LOCK response body.
import { statusLine } from '../http/http-error.js';
import type { ActiveLock } from './locks.js';
import { lockDiscovery } from './properties.js';
import type { PropertyName } from './requests.js';
import { dav, element, serializeXml, type XmlElement } from './xml.js';

/** The Content-Type of every 207 body and of LOCK's answer. */
export const MULTISTATUS_TYPE = 'application/xml; charset=utf-8';

function statusText(status: number): string {
  return `HTTP/1.1 ${statusLine(status)}`;
}

export interface PropstatGroup {
  status: number;
  properties: XmlElement[];
}

/** One resource with its properties grouped by status; empty groups are left out. */
export function propstatResponse(href: string, groups: readonly PropstatGroup[]): XmlElement {
  return dav('response', [
    dav('href', [href]),
    ...groups.filter((g) => g.properties.length > 0).map((g) => dav('propstat', [
      dav('prop', g.properties),
      dav('status', [statusText(g.status)]),
    ])),
  ]);
}

/** One resource with one status (e.g. a member that could not be deleted). */
export function statusResponse(href: string, status: number): XmlElement {
  return dav('response', [dav('href', [href]), dav('status', [statusText(status)])]);
}

/** An empty element naming a property (for propname results and failures). */
export function propertyElement(p: PropertyName): XmlElement {
  return element(p.ns, p.name);
}

export function multistatus(responses: readonly XmlElement[]): string {
  return serializeXml(dav('multistatus', [...responses]));
}

/** The body of a successful LOCK: the lock in a lockdiscovery property. */
export function lockResponseBody(lock: ActiveLock): string {
  return serializeXml(dav('prop', [lockDiscovery([lock])]));
}
