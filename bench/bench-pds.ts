import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { startAtprotoPds, type AtprotoPds } from '../test/infra/atproto-pds.ts';
import { createDevCertificates } from '../test/infra/dev-certificates.ts';

/**
 * The reference atproto PDS (test/infra/atproto-pds.ts) behind its HTTPS proxy, with a certificate from a CA of its
 * own that this process (the service included) trusts from now on; `close` also removes the certificates.
 */
export async function startBenchPds(): Promise<AtprotoPds> {
  const certificateDir = mkdtempSync(join(tmpdir(), 'bench-pds-tls-'));
  try {
    const certificates = await createDevCertificates(certificateDir);
    setDefaultCACertificates([...getCACertificates('default'), readFileSync(certificates.caCertPath, 'utf8')]);
    const pds = await startAtprotoPds(certificates);
    return {
      ...pds,
      async close() {
        await pds.close();
        rmSync(certificateDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(certificateDir, { recursive: true, force: true });
    throw error;
  }
}
