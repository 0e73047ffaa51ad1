// CHANGE_NOTIFY (MS-SMB2 2.2.35, 2.2.36).
import { Command } from '../header.js';
import { fixedBody, type SmbRequest } from './request.js';

/** SMB2_WATCH_TREE: report changes anywhere below the directory, not only among its own entries. */
const ChangeNotifyFlags = { WATCH_TREE: 0x1 } as const;

/**
 * Asks to be told of the next changes below an open directory (`completionFilter`: FileNotifyChange bits). The
 * answer is a FILE_NOTIFY_INFORMATION chain of at most `outputLength` bytes (parseOutputBuffer, then
 * fscc.ts parseFileNotifyInformation), or STATUS_NOTIFY_ENUM_DIR when more changed than that could carry.
 */
export function changeNotifyRequest(fileId: Buffer, completionFilter: number, watchTree: boolean, outputLength: number): SmbRequest {
  const b = fixedBody(32);
  b.writeUInt16LE(watchTree ? ChangeNotifyFlags.WATCH_TREE : 0, 2);
  b.writeUInt32LE(outputLength, 4);
  fileId.copy(b, 8);
  b.writeUInt32LE(completionFilter >>> 0, 24);
  return { command: Command.CHANGE_NOTIFY, body: b, payloadSize: outputLength };
}
