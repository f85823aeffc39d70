import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Writes `file` whole under a name of its own, then renames it into place: a process reading `file` meanwhile (another
 * local command starting) reads the old content or the new, never half. The temporary name is random and created
 * exclusively, so a leftover of a crashed writer is never written through.
 */
export function writeFileWhole(file: string, text: string, mode = 0o644): void {
  const whole = `${file}.${randomBytes(6).toString('hex')}.partial`;
  try {
    writeFileSync(whole, text, { mode, flag: 'wx' });
    renameSync(whole, file);
  } finally {
    rmSync(whole, { force: true });
  }
}
