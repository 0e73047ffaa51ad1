/**
 * Tree connect to a share (MS-SMB2 3.2.4.2): requests on the tree carry its TreeId and are encrypted when the
 * share or the session demands it.
 */
import { Command } from './header.js';
import type { SmbResponse } from './connection.js';
import { ShareFlags, emptyRequest, parseTreeConnectResponse, treeConnectRequest, type SmbRequest } from './messages.js';
import type { Session } from './session.js';

export class Tree {
  private disconnected = false;

  private constructor(
    readonly session: Session,
    readonly shareName: string,
    readonly treeId: number,
    readonly shareFlags: number,
    readonly maximalAccess: number,
  ) {}

  static async connect(session: Session, shareName: string): Promise<Tree> {
    const unc = `\\\\${session.connection.host}\\${shareName}`;
    const res = await session.request(treeConnectRequest(unc));
    const info = parseTreeConnectResponse(res.reader);
    return new Tree(session, shareName, res.header.treeId, info.shareFlags, info.maximalAccess);
  }

  get encrypted(): boolean {
    return (this.shareFlags & ShareFlags.ENCRYPT_DATA) !== 0 || this.session.crypto.encryptData;
  }

  private get ctx() {
    return this.session.context(this.treeId, this.encrypted);
  }

  request(req: SmbRequest, ok: readonly number[] = []): Promise<SmbResponse> {
    return this.session.connection.request(req, this.ctx, ok);
  }

  /** Related compound chain; responses are returned unchecked. */
  compound(reqs: readonly SmbRequest[]): Promise<SmbResponse[]> {
    return this.session.connection.compound(reqs, this.ctx);
  }

  async disconnect(): Promise<void> {
    if (this.disconnected) return;
    this.disconnected = true;
    await this.request(emptyRequest(Command.TREE_DISCONNECT));
  }
}
