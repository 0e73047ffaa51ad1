// The dav-state actor's handlers: what the http-fronts may ask of its state (state.ts), as DavStateProtocol
// declares it, and nothing more.
import type { DavStateProtocol } from './protocol.js';
import { resourceKey, type DavResource } from '../../src/webdav/dav-path.js';
import type { PropertyLimit, PropertyPatch } from '../../src/webdav/property-budget.js';
import type { ActiveLock, LockDepth, LockOutcome, LockRequest, UnlockOutcome } from '../../src/webdav/locks.js';
import type { ResourceState } from '../../src/webdav/properties.js';
import type { WriteGate, WriteGateResult } from '../../src/webdav/write-check.js';
import type { DavState } from './state.js';

export class DavStateService implements DavStateProtocol {
  constructor(private readonly state: DavState) {}

  async hint(): Promise<SharedArrayBuffer> {
    return this.state.shared;
  }

  async writeGate(gate: WriteGate): Promise<WriteGateResult> {
    const { leases, locks } = this.state;
    const leaseId = gate.lease ? await leases.acquire(resourceKey(gate.lease)) : undefined;
    const { blocker, lockTokens } = await locks.read((table) => ({
      blocker: table.blocker(gate.principal, gate.tokens, gate.targets),
      lockTokens: gate.ask.map((r) => table.covering(r).map((l) => l.token)),
    })).catch((err: unknown) => {
      if (leaseId !== undefined) leases.release(leaseId);
      throw err;
    });
    if (blocker) {
      if (leaseId !== undefined) leases.release(leaseId);
      return { blockedBy: blocker.root, lockTokens };
    }
    return { lockTokens, ...(leaseId !== undefined ? { leaseId } : {}) };
  }

  async release(leaseId: number): Promise<void> {
    this.state.leases.release(leaseId);
  }

  async describe(resources: DavResource[], what: { locks: boolean; properties: boolean }): Promise<(ResourceState | null)[]> {
    const [locks, properties] = await Promise.all([
      what.locks ? this.state.locks.read((table) => resources.map((r) => table.covering(r))) : [],
      what.properties ? this.state.properties.getMany(resources) : [],
    ]);
    return resources.map((_, i) => {
      const state = { locks: locks[i] ?? [], properties: properties[i] ?? [] };
      return state.locks.length + state.properties.length > 0 ? state : null;
    });
  }

  async patchProperties(resource: DavResource, patches: PropertyPatch[], principal: string, file: string): Promise<PropertyLimit | undefined> {
    return this.state.changed(this.state.properties.patch(resource, patches, principal, file));
  }

  async lock(request: LockRequest): Promise<LockOutcome> {
    const outcome = await this.state.locks.change((table) => table.lock(request));
    this.state.publish();
    return outcome;
  }

  async refresh(resource: DavResource, tokens: string[], principal: string, timeoutSeconds: number): Promise<ActiveLock | undefined> {
    return this.state.locks.change((table) => table.refresh(resource, tokens, principal, timeoutSeconds));
  }

  async unlock(resource: DavResource, token: string, principal: string): Promise<UnlockOutcome> {
    const outcome = await this.state.locks.change((table) => table.unlock(resource, token, principal));
    this.state.publish();
    return outcome;
  }

  async removed(resource: DavResource): Promise<void> {
    await this.state.locks.change((table) => table.removeAt(resource));
    await this.state.changed(this.state.properties.remove(resource));
  }

  async moved(from: DavResource, to: DavResource): Promise<void> {
    await this.state.locks.change((table) => table.removeAt(from));
    await this.state.changed(this.state.properties.move(from, to));
  }

  async copied(from: DavResource, to: DavResource, depth: LockDepth, principal: string): Promise<PropertyLimit | undefined> {
    return this.state.changed(this.state.properties.copy(from, to, depth, principal));
  }
}
