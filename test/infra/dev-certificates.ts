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
  const keyPath = join(directory, 'localhost.key');
  const certPath = join(directory, 'localhost.crt');

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
    caCertPath,
    '-CAkey',
    caKeyPath,
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-addext',
    'basicConstraints=critical,CA:FALSE',
    '-addext',
    'extendedKeyUsage=serverAuth',
  ]);
  return { caCertPath, certPath, keyPath };
}

/** A client certificate (mutual TLS) signed by the dev CA that createDevCertificates made in `directory`. */
export async function createDevClientCertificate(directory: string, name: string): Promise<{ certPath: string; keyPath: string }> {
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
    '-addext',
    'basicConstraints=critical,CA:FALSE',
    '-addext',
    'extendedKeyUsage=clientAuth',
  ]);
  return { certPath, keyPath };
}
