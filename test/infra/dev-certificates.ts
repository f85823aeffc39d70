import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from '../../src/local/embedded/run-command.ts';

export type DevCertificates = { caCertPath: string; certPath: string; keyPath: string };

// Tests talk HTTPS to servers on loopback with certificate checks ON, as production does: a throwaway CA that only
// the test processes trust, and a leaf for `localhost` and 127.0.0.1 signed by it. EC keys keep this well under 1 s.
const validDays = '2';
const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-noenc'];

/** Creates a dev CA and a server certificate signed by it in `directory` (with the openssl CLI). */
export async function createDevCertificates(directory: string): Promise<DevCertificates> {
  await mkdir(directory, { recursive: true });
  const caKeyPath = join(directory, 'dev-ca.key');
  const caCertPath = join(directory, 'dev-ca.crt');

  await runCommand('openssl', [
    'req',
    '-x509',
    ...ecKey,
    '-keyout',
    caKeyPath,
    '-out',
    caCertPath,
    '-days',
    validDays,
    '-subj',
    '/CN=content-service test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  const server = await createLeafCertificate(directory, 'localhost', ['subjectAltName=DNS:localhost,IP:127.0.0.1', 'extendedKeyUsage=serverAuth']);
  return { caCertPath, ...server };
}

/** A client certificate (mutual TLS) signed by the dev CA that createDevCertificates made in `directory`. */
export async function createDevClientCertificate(directory: string, name: string): Promise<{ certPath: string; keyPath: string }> {
  return createLeafCertificate(directory, name, ['extendedKeyUsage=clientAuth']);
}

/** A certificate for `/CN=<name>` (`<name>.crt`, `<name>.key` in `directory`) signed by the dev CA there, with these extensions. */
async function createLeafCertificate(directory: string, name: string, extensions: string[]): Promise<{ certPath: string; keyPath: string }> {
  const keyPath = join(directory, `${name}.key`);
  const certPath = join(directory, `${name}.crt`);
  await runCommand('openssl', [
    'req',
    '-x509',
    ...ecKey,
    '-keyout',
    keyPath,
    '-out',
    certPath,
    '-days',
    validDays,
    '-CA',
    join(directory, 'dev-ca.crt'),
    '-CAkey',
    join(directory, 'dev-ca.key'),
    '-subj',
    `/CN=${name}`,
    ...['basicConstraints=critical,CA:FALSE', ...extensions].flatMap((extension) => ['-addext', extension]),
  ]);
  return { certPath, keyPath };
}
