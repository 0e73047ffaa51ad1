/**
 * Tree connect to a share (MS-SMB2 3.2.4.2): requests on the tree carry its TreeId and are encrypted when the
 * share or the session demands it.
 */
import { NtStatus, SmbProtocolError } from './errors.js';
import { Command, Dialect } from './header.js';
import type { HeldRequestOptions, SmbResponse } from './connection.js';
import { parseValidateNegotiateResponse, validateNegotiateRequest } from './messages/ioctl.js';
import { CLIENT_CAPABILITIES, CLIENT_SECURITY_MODE } from './messages/negotiate.js';
import type { SmbRequest } from './messages/request.js';
import { emptyRequest, parseTreeConnectResponse, ShareFlags, treeConnectRequest } from './messages/session.js';
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
    const tree = new Tree(session, shareName, res.header.treeId, info.shareFlags, info.maximalAccess);
    const dialect = session.connection.dialect;
    if (dialect === Dialect.SMB300 || dialect === Dialect.SMB302) await tree.validateNegotiate();
    return tree;
  }

  /**
   * SMB 3.0/3.0.2 secure dialect negotiation (MS-SMB2 3.2.5.14.12): the server repeats, in a signed IOCTL
   * response, what it negotiated; any difference means the NEGOTIATE was tampered with.
   */
  private async validateNegotiate(): Promise<void> {
    const conn = this.session.connection;
    const req = validateNegotiateRequest(
      { capabilities: CLIENT_CAPABILITIES, guid: conn.clientGuid, securityMode: CLIENT_SECURITY_MODE },
      conn.offeredDialects,
    );
    const res = await this.request(req, [NtStatus.NOT_SUPPORTED, NtStatus.INVALID_DEVICE_REQUEST]);
    if (res.header.status !== NtStatus.SUCCESS) return; // servers without the FSCTL
    const got = parseValidateNegotiateResponse(res.reader);
    if (
      got.dialect !== conn.dialect ||
      got.capabilities !== conn.serverCapabilities ||
      got.securityMode !== conn.serverSecurityMode ||
      !got.guid.equals(conn.serverGuid)
    ) {
      conn.close();
      throw new SmbProtocolError('VALIDATE_NEGOTIATE_INFO does not match the NEGOTIATE response: connection tampered with');
    }
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

  /** A request the server may hold open until something happens (CHANGE_NOTIFY); the answer is returned unchecked. */
  async held(req: SmbRequest, options: HeldRequestOptions): Promise<SmbResponse> {
    const [res] = await this.heldCompound([req], options);
    return res!;
  }

  /**
   * A related compound chain the server may hold (an open that waits until another client gives up its oplock or
   * lease); `options.signal` ends the wait with CANCEL. Responses are returned unchecked.
   */
  heldCompound(reqs: readonly SmbRequest[], options: HeldRequestOptions): Promise<SmbResponse[]> {
    return this.session.connection.compound(reqs, this.ctx, { ...options, held: true });
  }

  /** Related compound chain; responses are returned unchecked. */
  compound(reqs: readonly SmbRequest[]): Promise<SmbResponse[]> {
    return this.session.connection.compound(reqs, this.ctx);
  }

  /** Several related chains in one compound message (Connection.compoundChains); responses are returned unchecked. */
  compoundChains(chains: readonly (readonly SmbRequest[])[]): Promise<SmbResponse[][]> {
    return this.session.connection.compoundChains(chains, this.ctx);
  }

  async disconnect(): Promise<void> {
    if (this.disconnected) return;
    this.disconnected = true;
    await this.request(emptyRequest(Command.TREE_DISCONNECT));
  }
}
